/**
 * Structured logging (CONTRACT §12): one JSON object per line via pino, with every known secret
 * masked in the serialized line before it is written.
 */
import { Writable } from 'node:stream';
import { pino, type Logger as PinoLogger } from 'pino';
import type { SecretMasker } from './secrets.js';

/** The logger type used across the project (pino's). */
export type Logger = PinoLogger;

/** Options of `createLogger`. */
export interface CreateLoggerOptions {
  /** Where lines go: `serve` logs to stdout; `review`/`run-job` to stderr (their stdout is the result). */
  destination: 'stdout' | 'stderr' | NodeJS.WritableStream;
  level?: string;
  /** Masks secrets in every line. */
  masker: SecretMasker;
}

/** Creates a pino logger whose output has every secret of `masker` replaced by `***`. */
export function createLogger(options: CreateLoggerOptions): Logger {
  const target =
    options.destination === 'stdout'
      ? process.stdout
      : options.destination === 'stderr'
        ? process.stderr
        : options.destination;
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      target.write(options.masker.mask(chunk.toString()));
      callback();
    },
  });
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: undefined,
      redact: { paths: ['token', 'password', 'apiKey', '*.token', '*.password', '*.apiKey'], censor: '***' },
    },
    stream,
  );
}

/** A logger that writes nothing (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
