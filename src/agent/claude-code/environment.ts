/**
 * The Claude Code child process's environment and private directories. The child gets an explicit
 * environment (the SDK's `env` replaces the inherited one): PATH, a HOME and CLAUDE_CONFIG_DIR owned
 * by reviewbot, one Anthropic credential, the base URL when set, and switches that keep it quiet —
 * never a platform token, store URL or any other secret of the parent.
 */
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../errors.js';

/** Directory under `workspace.base_dir` that holds the agent's HOME and config (sessions). */
export const AGENT_DIR_NAME = '.reviewbot-agent';

/** Variables that carry the child's Anthropic credential; the Bash tool's shell unsets them. */
export const CREDENTIAL_VARS = [
  'ANTHROPIC_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_AUTH_TOKEN',
] as const;

/** The Anthropic credential the child uses. */
export interface ClaudeCredential {
  name: 'ANTHROPIC_API_KEY' | 'CLAUDE_CODE_OAUTH_TOKEN';
  value: string;
}

/** Paths of the agent's private directories (each mode 0700). */
export interface AgentDirs {
  /** `<base>/.reviewbot-agent` */
  root: string;
  /** HOME of the child: `<root>/home`. */
  home: string;
  /** CLAUDE_CONFIG_DIR of the child (session transcripts live here): `<root>/config`. */
  config: string;
}

/**
 * Picks the credential from `env`: `ANTHROPIC_API_KEY` (Console API key) first, else
 * `CLAUDE_CODE_OAUTH_TOKEN` (from `claude setup-token`, subscription use).
 * @throws ConfigError naming both variables (and the provider alternative) when neither is set.
 */
export function resolveClaudeCredential(env: NodeJS.ProcessEnv): ClaudeCredential {
  const key = env.ANTHROPIC_API_KEY?.trim();
  if (key) return { name: 'ANTHROPIC_API_KEY', value: key };
  const token = env.CLAUDE_CODE_OAUTH_TOKEN?.trim();
  if (token) return { name: 'CLAUDE_CODE_OAUTH_TOKEN', value: token };
  throw new ConfigError([
    'ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN is required by the default agent runner (Claude Code); ' +
      'or set agent.provider (AGENT_PROVIDER) to use a provider API',
  ]);
}

/**
 * The Anthropic API base URL for Claude Code (Anthropic SDK convention, without `/v1`):
 * `agent.base_url` with a trailing `/v1` removed when given, else `ANTHROPIC_BASE_URL`, else none
 * (the official API).
 */
export function resolveClaudeBaseUrl(
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const raw = configured?.trim() || env.ANTHROPIC_BASE_URL?.trim();
  if (!raw) return undefined;
  return raw.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Input of `buildChildEnv`. */
export interface ChildEnvInput {
  /** The parent's environment; only PATH is read from it. */
  parentEnv: NodeJS.ProcessEnv;
  dirs: AgentDirs;
  credential: ClaudeCredential;
  baseUrl?: string;
  /** Retries of a failed API call inside Claude Code (`CLAUDE_CODE_MAX_RETRIES`). */
  maxRetries: number;
}

/** Fallback PATH when the parent has none. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Builds the child's complete environment: `PATH`, `HOME`, `CLAUDE_CONFIG_DIR`, the credential,
 * `ANTHROPIC_BASE_URL` when given, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no telemetry,
 * error reporting or auto-update), `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1` (no command outlives
 * its tool call) and `CLAUDE_CODE_MAX_RETRIES`. Pure.
 */
export function buildChildEnv(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    PATH: input.parentEnv.PATH || DEFAULT_PATH,
    HOME: input.dirs.home,
    CLAUDE_CONFIG_DIR: input.dirs.config,
    [input.credential.name]: input.credential.value,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1',
    CLAUDE_CODE_MAX_RETRIES: String(Math.max(0, Math.floor(input.maxRetries))),
  };
  if (input.baseUrl) env.ANTHROPIC_BASE_URL = input.baseUrl;
  return env;
}

/** The agent directories under `workspaceBaseDir` (no file system access). */
export function agentDirsOf(workspaceBaseDir: string): AgentDirs {
  const root = path.join(path.resolve(workspaceBaseDir), AGENT_DIR_NAME);
  return { root, home: path.join(root, 'home'), config: path.join(root, 'config') };
}

/**
 * Creates the agent directories under `workspaceBaseDir` (parents as needed) and sets each to mode
 * 0700, so other users of the machine cannot read session transcripts. Idempotent.
 */
export async function ensureAgentDirs(workspaceBaseDir: string): Promise<AgentDirs> {
  const dirs = agentDirsOf(workspaceBaseDir);
  for (const dir of [dirs.root, dirs.home, dirs.config]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  }
  return dirs;
}
