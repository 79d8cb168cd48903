import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cliLogSettings, createLogger, type LogFormat } from './logger.js';
import { SecretMasker } from './secrets.js';

const SECRET = 'ghp_secretsecretsecret0123';

/** A logger of `format` at `level` writing into a string. */
function capture(
  format: LogFormat,
  level = 'debug',
): { logger: ReturnType<typeof createLogger>; out: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const logger = createLogger({ destination: stream, masker: new SecretMasker([SECRET]), level, format });
  return { logger, out: () => text };
}

describe('cliLogSettings', () => {
  it.each([
    [{}, { format: 'text', level: 'warn' }],
    [{ LOG_FORMAT: 'json' }, { format: 'json', level: 'warn' }],
    [
      { LOG_FORMAT: 'JSON', LOG_LEVEL: 'info' },
      { format: 'json', level: 'info' },
    ],
    [{ LOG_LEVEL: 'debug' }, { format: 'json', level: 'debug' }],
    [
      { LOG_LEVEL: 'debug', LOG_FORMAT: 'text' },
      { format: 'text', level: 'debug' },
    ],
    [
      { LOG_LEVEL: '', LOG_FORMAT: '' },
      { format: 'text', level: 'warn' },
    ],
  ])('%j → %j', (env, expected) => {
    expect(cliLogSettings(env)).toEqual({ ...expected, warnings: [] });
  });

  it('names an unknown LOG_LEVEL or LOG_FORMAT and keeps the defaults', () => {
    expect(cliLogSettings({ LOG_LEVEL: 'loud', LOG_FORMAT: 'xml' })).toEqual({
      format: 'text',
      level: 'warn',
      warnings: [
        'LOG_LEVEL "loud" is not one of trace, debug, info, warn, error, fatal, silent; using warn',
        'LOG_FORMAT "xml" is not json or text; ignored',
      ],
    });
  });
});

describe('createLogger', () => {
  it('json: one JSON object per line, secrets masked', () => {
    const { logger, out } = capture('json');
    logger.warn({ err: `clone failed with ${SECRET}` }, 'git failed');
    const record = JSON.parse(out()) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 40, msg: 'git failed', err: 'clone failed with ***' });
  });

  it('text: one reviewbot: line per record with its level and cause, secrets masked, no JSON', () => {
    const { logger, out } = capture('text');
    logger.warn({ err: `denied for ${SECRET}`, platform: 'github' }, 'could not set the status');
    logger.error({ err: new Error('boom') }, 'job failed');
    logger.debug('plan ready');
    expect(out()).toBe(
      [
        'reviewbot: warning: could not set the status: denied for ***',
        'reviewbot: error: job failed: boom',
        'reviewbot: debug: plan ready',
        '',
      ].join('\n'),
    );
  });

  it('an unknown level falls back to info instead of throwing', () => {
    const { logger } = capture('json', 'loud');
    expect(logger.level).toBe('info');
  });
});
