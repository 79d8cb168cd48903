import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { loadConfig } from './load-config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function yamlFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const none = { systemConfigPath: path.join(dir, 'absent.yaml'), cwd: dir };

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the contract defaults with no file and no environment', () => {
    const { config, configFile } = loadConfig({ ...none, env: {} });
    expect(configFile).toBeUndefined();
    expect(config.webhook).toEqual({ host: '0.0.0.0', port: 8080, max_concurrent_jobs: 4 });
    expect(config.agent.max_turns).toBe(30);
    expect(config.agent.provider).toBeUndefined();
    expect(config.reviewer.triggers).toEqual([]);
    expect(config.access).toEqual({ allowed_users: [], allowed_repos: [] });
    expect(config.workspace.base_dir).toBe(path.join(os.tmpdir(), 'reviewbot-workspaces'));
    expect(config.workspace.cleanup_interval_hours).toBe(6);
    expect(config.kubernetes).toMatchObject({
      namespace: 'default',
      backoff_limit: 0,
      active_deadline_seconds: 600,
      ttl_after_finished: 3600,
    });
    expect(config.store.key_ttl_seconds).toBe(86400);
  });

  it('reads YAML and lets the environment override it', () => {
    const file = yamlFile(
      'a.yaml',
      'webhook:\n  port: 9000\nreviewer:\n  bot_username: review-bot\n  triggers: [pr_opened]\nagent:\n  provider: anthropic\n  max_turns: 12\n',
    );
    const { config, configFile } = loadConfig({
      ...none,
      configFile: file,
      env: {
        WEBHOOK_PORT: '9100',
        ALLOWED_USERS: 'alice, bob',
        REVIEWER_TRIGGERS: 'pr_opened,pr_push',
        AGENT_MODEL: 'm-1',
      },
    });
    expect(configFile).toBe(file);
    expect(config.webhook.port).toBe(9100);
    expect(config.access.allowed_users).toEqual(['alice', 'bob']);
    expect(config.reviewer).toEqual({ bot_username: 'review-bot', triggers: ['pr_opened', 'pr_push'] });
    expect(config.agent).toMatchObject({ provider: 'anthropic', max_turns: 12, model: 'm-1' });
  });

  it('finds the file through REVIEWBOT_CONFIG, then ./reviewbot.yaml', () => {
    const viaEnv = yamlFile('env.yaml', 'webhook:\n  port: 1234\n');
    expect(loadConfig({ ...none, env: { REVIEWBOT_CONFIG: viaEnv } }).config.webhook.port).toBe(1234);
    const local = mkdtempSync(path.join(dir, 'cwd-'));
    writeFileSync(path.join(local, 'reviewbot.yaml'), 'webhook:\n  port: 4321\n');
    expect(loadConfig({ ...none, cwd: local, env: {} }).config.webhook.port).toBe(4321);
  });

  it('reports every problem at once, each naming its key', () => {
    const file = yamlFile(
      'bad.yaml',
      'webhook:\n  port: high\n  colour: blue\nagent:\n  provider: skynet\nreviewer:\n  triggers: [pr_closed]\nstore:\n  url: http://x\n',
    );
    const issues = problems(() =>
      loadConfig({ ...none, configFile: file, env: { AGENT_MAX_TURNS: 'lots' } }),
    );
    expect(issues.join('\n')).toMatch(/webhook\.port: /);
    expect(issues.join('\n')).toMatch(/webhook\.colour: unknown key/);
    expect(issues.join('\n')).toMatch(/agent\.provider: /);
    expect(issues.join('\n')).toMatch(/agent\.max_turns \(from AGENT_MAX_TURNS\): /);
    expect(issues.join('\n')).toMatch(/reviewer\.triggers\.0: /);
    expect(issues.join('\n')).toMatch(/store\.url: must be a redis/);
    expect(issues).toHaveLength(6);
  });

  it.each([
    ['ALLOWED_REPOS', 'not-a-repo', /access\.allowed_repos\.0 \(from ALLOWED_REPOS\)/],
    ['K8S_IMAGE_PULL_POLICY', 'Sometimes', /kubernetes\.image_pull_policy \(from K8S_IMAGE_PULL_POLICY\)/],
    ['WEBHOOK_PORT', '70000', /webhook\.port \(from WEBHOOK_PORT\)/],
    ['K8S_RESOURCE_LIMITS_MEMORY', 'lots', /kubernetes\.resources\.limits\.memory/],
    ['REVIEW_PROGRESS', 'loud', /review\.progress \(from REVIEW_PROGRESS\): /],
  ])('rejects %s=%s naming the key', (name, value, pattern) => {
    expect(problems(() => loadConfig({ ...none, env: { [name]: value } })).join('\n')).toMatch(pattern);
  });

  it('names a missing or malformed file', () => {
    expect(
      problems(() => loadConfig({ ...none, configFile: path.join(dir, 'nope.yaml'), env: {} }))[0],
    ).toMatch(/nope\.yaml: cannot be read \(ENOENT\)/);
    const broken = yamlFile('broken.yaml', 'webhook: [\n');
    expect(problems(() => loadConfig({ ...none, configFile: broken, env: {} }))[0]).toMatch(/broken\.yaml: /);
  });
});
