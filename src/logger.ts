/**
 * Logging (CONTRACT §12): pino, with every known secret masked in the serialized line before it is
 * written. Two formats: `json`, one JSON object per line (the server, Job pods, and the CLI when
 * asked: `LOG_FORMAT=json`, `LOG_LEVEL`, `--verbose`); `text`, one `reviewbot: warning: …` line per
 * record for a person at a terminal (the CLI's default, at level `warn`).
 */
import { Writable } from 'node:stream';
import { pino, type Logger as PinoLogger } from 'pino';
import type { SecretMasker } from './secrets.js';

/** The logger type used across the project (pino's). */
export type Logger = PinoLogger;

/** `json`: one JSON object per line; `text`: one human line per record (`reviewbot: warning: …`). */
export type LogFormat = 'json' | 'text';

/** The levels `LOG_LEVEL` accepts (pino's), quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** One of `LOG_LEVELS`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Options of `createLogger`. */
export interface CreateLoggerOptions {
  /** Where lines go: `serve` logs to stdout; `review`/`run-job` to stderr (their stdout is the result). */
  destination: 'stdout' | 'stderr' | NodeJS.WritableStream;
  /** Default: `LOG_LEVEL`, else `info`. An unknown level is replaced by the default (never thrown). */
  level?: string;
  /** Default `json`. */
  format?: LogFormat;
  /** Masks secrets in every line. */
  masker: SecretMasker;
}

/** True when `value` is one of `LOG_LEVELS`. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Creates a pino logger whose output has every secret of `masker` replaced by `***`. */
export function createLogger(options: CreateLoggerOptions): Logger {
  const target =
    options.destination === 'stdout'
      ? process.stdout
      : options.destination === 'stderr'
        ? process.stderr
        : options.destination;
  const format = options.format ?? 'json';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      const line = options.masker.mask(chunk.toString());
      target.write(format === 'json' ? line : textLine(line));
      callback();
    },
  });
  const wanted = (options.level ?? process.env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  return pino(
    {
      level: isLogLevel(wanted) ? wanted : 'info',
      base: undefined,
      redact: { paths: ['token', 'password', 'apiKey', '*.token', '*.password', '*.apiKey'], censor: '***' },
    },
    stream,
  );
}

/** How the CLI logs, decided from the environment and `--verbose` (`cliLogSettings`). */
export interface CliLogSettings {
  format: LogFormat;
  level: LogLevel;
  /** A variable with a value we do not know, said once on stderr; the default is used instead. */
  warnings: string[];
}

/**
 * How a CLI command for a person (`review`, `learnings`, the Action) logs: by default `text` at
 * `warn`, so stderr holds progress and `reviewbot:` lines only. JSON lines when asked for:
 * `LOG_FORMAT=json` (at `LOG_LEVEL`, default `warn`), or `LOG_LEVEL` set (e.g. `debug`), which
 * `--verbose` sets to `debug`; `LOG_FORMAT=text` keeps text at any level. `serve` and `run-job` do
 * not use this: they always log JSON.
 */
export function cliLogSettings(env: NodeJS.ProcessEnv): CliLogSettings {
  const warnings: string[] = [];
  const rawLevel = env.LOG_LEVEL?.trim().toLowerCase() || undefined;
  let level: LogLevel | undefined;
  if (rawLevel !== undefined) {
    if (isLogLevel(rawLevel)) level = rawLevel;
    else warnings.push(`LOG_LEVEL "${rawLevel}" is not one of ${LOG_LEVELS.join(', ')}; using warn`);
  }
  const rawFormat = env.LOG_FORMAT?.trim().toLowerCase() || undefined;
  let format: LogFormat | undefined;
  if (rawFormat === 'json' || rawFormat === 'text') format = rawFormat;
  else if (rawFormat !== undefined) warnings.push(`LOG_FORMAT "${rawFormat}" is not json or text; ignored`);
  return {
    format: format ?? (level !== undefined ? 'json' : 'text'),
    level: level ?? 'warn',
    warnings,
  };
}

/**
 * The logger of a CLI command for a person, on stderr, per `cliLogSettings(env)`; its warnings about
 * the variables themselves are written to stderr first.
 */
export function createCliLogger(env: NodeJS.ProcessEnv, masker: SecretMasker): Logger {
  const settings = cliLogSettings(env);
  for (const warning of settings.warnings) process.stderr.write(`reviewbot: warning: ${warning}\n`);
  return createLogger({ destination: 'stderr', masker, level: settings.level, format: settings.format });
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

/** One pino JSON line (already masked) as `reviewbot: <level>: <msg>[: <err>]`. */
function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = LEVEL_NAMES[record.level as number] ?? 'log';
  const msg = typeof record.msg === 'string' ? record.msg : '';
  const cause = errorText(record.err ?? record.error);
  return `reviewbot: ${level}: ${msg}${cause && !msg.includes(cause) ? `: ${cause}` : ''}\n`;
}

function errorText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
    return (value as { message: string }).message;
  }
  return '';
}

/** A logger that writes nothing (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
