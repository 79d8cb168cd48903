import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import {
  agentDirsOf,
  buildChildEnv,
  ensureAgentDirs,
  resolveClaudeBaseUrl,
  resolveClaudeCredential,
} from './environment.js';

describe('resolveClaudeCredential', () => {
  it.each([
    [{ ANTHROPIC_API_KEY: 'sk-key' }, { name: 'ANTHROPIC_API_KEY', value: 'sk-key' }],
    [{ CLAUDE_CODE_OAUTH_TOKEN: 'oat-token' }, { name: 'CLAUDE_CODE_OAUTH_TOKEN', value: 'oat-token' }],
    [
      { ANTHROPIC_API_KEY: 'sk-key', CLAUDE_CODE_OAUTH_TOKEN: 'oat-token' },
      { name: 'ANTHROPIC_API_KEY', value: 'sk-key' },
    ],
    [
      { ANTHROPIC_API_KEY: '  ', CLAUDE_CODE_OAUTH_TOKEN: 'oat-token' },
      { name: 'CLAUDE_CODE_OAUTH_TOKEN', value: 'oat-token' },
    ],
  ])('picks the credential from %j', (env, expected) => {
    expect(resolveClaudeCredential(env)).toEqual(expected);
  });

  it('names both variables and the provider alternative when neither is set', () => {
    expect(() => resolveClaudeCredential({ OPENAI_API_KEY: 'x' })).toThrow(ConfigError);
    expect(() => resolveClaudeCredential({})).toThrow(
      /ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN is required .*AGENT_PROVIDER/,
    );
  });
});

describe('resolveClaudeBaseUrl', () => {
  it.each([
    [undefined, {}, undefined],
    [undefined, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' }, 'http://127.0.0.1:9'],
    ['https://gateway.example/v1', { ANTHROPIC_BASE_URL: 'http://ignored' }, 'https://gateway.example'],
    ['https://gateway.example/anthropic/v1/', {}, 'https://gateway.example/anthropic'],
  ])('agent.base_url %s with %j gives %s', (configured, env, expected) => {
    expect(resolveClaudeBaseUrl(configured, env)).toBe(expected);
  });
});

describe('buildChildEnv', () => {
  const dirs = agentDirsOf('/srv/ws');
  const parentEnv = {
    PATH: '/usr/bin:/bin',
    HOME: '/root',
    GITHUB_TOKEN: 'ghp_x',
    CODEHOST_TOKEN: 'ghp_y',
    GITLAB_TOKEN: 'glpat',
    STORE_URL: 'redis://:pw@h:6379/0',
    ANTHROPIC_API_KEY: 'sk-parent',
    OPENAI_API_KEY: 'sk-openai',
    CODEHOST_WEBHOOK_SECRET: 'whsec',
  };

  it('holds exactly PATH, the agent HOME and config, one credential, the base URL and the quiet switches', () => {
    const env = buildChildEnv({
      parentEnv,
      dirs,
      credential: { name: 'CLAUDE_CODE_OAUTH_TOKEN', value: 'oat' },
      baseUrl: 'http://127.0.0.1:1',
      maxRetries: 2,
    });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/srv/ws/.reviewbot-agent/home',
      CLAUDE_CONFIG_DIR: '/srv/ws/.reviewbot-agent/config',
      CLAUDE_CODE_OAUTH_TOKEN: 'oat',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1',
      CLAUDE_CODE_MAX_RETRIES: '2',
    });
  });

  it('leaves ANTHROPIC_BASE_URL out when none is given and falls back to a default PATH', () => {
    const env = buildChildEnv({
      parentEnv: {},
      dirs,
      credential: { name: 'ANTHROPIC_API_KEY', value: 'sk' },
      maxRetries: 0,
    });
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(env.PATH).toContain('/usr/bin');
    expect(env.CLAUDE_CODE_MAX_RETRIES).toBe('0');
  });
});

describe('ensureAgentDirs', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'agent-dirs-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('creates <base>/.reviewbot-agent with home and config, each mode 0700, idempotently', async () => {
    const wsBase = path.join(base, 'not-yet', 'there');
    const dirs = await ensureAgentDirs(wsBase);
    await ensureAgentDirs(wsBase);
    expect(dirs.root).toBe(path.join(wsBase, '.reviewbot-agent'));
    for (const dir of [dirs.root, dirs.home, dirs.config]) {
      expect(statSync(dir).isDirectory()).toBe(true);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
  });
});
