import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import { buildPlatforms } from '../index.js';
import { readGitLabSettings } from './settings.js';

describe('readGitLabSettings', () => {
  it('is undefined without GITLAB_TOKEN (platform disabled)', () => {
    expect(readGitLabSettings({})).toBeUndefined();
    expect(readGitLabSettings({ GITLAB_TOKEN: '  ', GITLAB_URL: 'https://git.example.com' })).toBeUndefined();
  });

  it.each([
    [undefined, 'https://gitlab.com'],
    ['https://git.example.com', 'https://git.example.com'],
    ['https://git.example.com/', 'https://git.example.com'],
    ['https://git.example.com/api/v4', 'https://git.example.com'],
    ['https://example.com/gitlab/', 'https://example.com/gitlab'],
    ['http://127.0.0.1:8929', 'http://127.0.0.1:8929'],
  ])('GITLAB_URL %j → %s', (value, url) => {
    const env = { GITLAB_TOKEN: 'glpat-x', ...(value === undefined ? {} : { GITLAB_URL: value }) };
    expect(readGitLabSettings(env)).toEqual({ token: 'glpat-x', url, webhookSecret: undefined });
  });

  it('reads the webhook secret', () => {
    expect(readGitLabSettings({ GITLAB_TOKEN: 't', GITLAB_WEBHOOK_SECRET: ' s3cret ' })?.webhookSecret).toBe(
      's3cret',
    );
  });

  it.each([['gitlab.example.com'], ['ftp://gitlab.example.com'], ['https://user:pw@gitlab.example.com']])(
    'rejects GITLAB_URL %j naming the key',
    (value) => {
      const read = () => readGitLabSettings({ GITLAB_TOKEN: 't', GITLAB_URL: value });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/GITLAB_URL/);
    },
  );
});

describe('the gitlab registry entry', () => {
  const logger = pino({ level: 'silent' });

  it('builds the platform only when GITLAB_TOKEN is set, with a webhook only with a secret', async () => {
    expect((await buildPlatforms({ env: {}, logger })).has('gitlab')).toBe(false);
    const plain = (await buildPlatforms({ env: { GITLAB_TOKEN: 't' }, logger })).get('gitlab');
    expect(plain?.name).toBe('gitlab');
    expect(plain?.webhook).toBeUndefined();
    const hooked = (
      await buildPlatforms({ env: { GITLAB_TOKEN: 't', GITLAB_WEBHOOK_SECRET: 's' }, logger })
    ).get('gitlab');
    expect(hooked?.webhook).toBeDefined();
  });
});
