/**
 * Loads the configuration (CONTRACT §3): the YAML file (`--config`, `REVIEWBOT_CONFIG`,
 * `/etc/reviewbot/config.yaml`, `./reviewbot.yaml`, first that applies), then environment
 * overrides, validated at once. Every problem is reported together, each naming its key.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import { ENV_BINDINGS, coerceEnvValue } from './env.js';
import { configSchema, type RawConfig } from './schema.js';

/** Where configuration comes from. */
export interface LoadConfigOptions {
  /** `--config FILE`; must exist when given. */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Directory for `./reviewbot.yaml` (default: the process's working directory). */
  cwd?: string;
  /** Overrides `/etc/reviewbot/config.yaml` (tests). */
  systemConfigPath?: string;
}

/** The loaded configuration plus the file it came from (if any). */
export interface LoadedConfig {
  config: RawConfig;
  configFile: string | undefined;
}

/** Picks the YAML file per CONTRACT §3's order; undefined when none applies. */
export function resolveConfigFile(options: LoadConfigOptions): string | undefined {
  const env = options.env ?? process.env;
  if (options.configFile) return options.configFile;
  if (env.REVIEWBOT_CONFIG) return env.REVIEWBOT_CONFIG;
  const system = options.systemConfigPath ?? '/etc/reviewbot/config.yaml';
  if (existsSync(system)) return system;
  const local = path.join(options.cwd ?? process.cwd(), 'reviewbot.yaml');
  return existsSync(local) ? local : undefined;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read error';
    throw new ConfigError([`config file ${file}: cannot be read (${code})`]);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e) => `config file ${file}: ${e.message.split('\n')[0]}`));
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError([`config file ${file}: the top level must be a mapping`]);
  }
  return value as Record<string, unknown>;
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

/**
 * Loads and validates the configuration.
 * @throws ConfigError listing every invalid, unknown or missing key (exit code 2).
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const configFile = resolveConfigFile(options);
  const raw = configFile ? readYaml(configFile) : {};
  const fromEnv = new Map<string, string>();
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.env];
    if (value === undefined) continue;
    setPath(raw, binding.path, coerceEnvValue(value, binding.kind));
    fromEnv.set(binding.path.join('.'), binding.env);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const keys = issue.path.map(String);
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `${[...keys, k].join('.')}: unknown key`).join('; ');
      }
      const key = keys.join('.') || '(top level)';
      const source = [...fromEnv].find(([k]) => key === k || key.startsWith(`${k}.`))?.[1];
      return `${key}${source ? ` (from ${source})` : ''}: ${issue.message}`;
    });
    throw new ConfigError(issues);
  }
  return { config: parsed.data, configFile };
}
