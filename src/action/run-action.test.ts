import { describe, expect, it } from 'vitest';
import { reviewEnv } from './run-action.js';

const base = {
  GITHUB_TOKEN: 'ghs_x',
  GITHUB_API_URL: 'https://ghe.example/api/v3',
  RUNNER_TEMP: '/runner/tmp',
};

describe('reviewEnv', () => {
  it('maps the inputs and the workflow token to the configuration variables', () => {
    const env = reviewEnv({ ...base, INPUT_PROVIDER: 'openai', INPUT_MODEL: 'gpt-x', INPUT_KEY: ' sk-1 ' });
    expect(env).toMatchObject({
      CODEHOST_TOKEN: 'ghs_x',
      CODEHOST_API_URL: 'https://ghe.example/api/v3',
      WORKSPACE_BASE_DIR: '/runner/tmp/reviewbot',
      AGENT_PROVIDER: 'openai',
      AGENT_MODEL: 'gpt-x',
      OPENAI_API_KEY: 'sk-1',
    });
    expect(env.INPUT_KEY).toBeUndefined();
  });

  it.each([
    [{ INPUT_PROVIDER: 'anthropic', INPUT_KEY: 'k', GITHUB_TOKEN: '' }, /GITHUB_TOKEN is empty/],
    [{ INPUT_PROVIDER: 'anthropic', INPUT_KEY: '' }, /the key input is empty/],
    [{ INPUT_PROVIDER: 'nope', INPUT_KEY: 'k' }, /the key input needs a provider input \(one of anthropic, /],
  ])('%j: a set-up error naming the input', (inputs, message) => {
    expect(() => reviewEnv({ ...base, ...inputs })).toThrow(message);
  });

  it('openai-compatible (a self-hosted model server) needs no key input', () => {
    const env = reviewEnv({ ...base, INPUT_PROVIDER: 'openai-compatible', INPUT_KEY: '' });
    expect(env.AGENT_PROVIDER).toBe('openai-compatible');
    expect(env.AGENT_API_KEY).toBeUndefined();
  });

  it('an empty key input is fine when the provider key is already in the environment', () => {
    expect(
      reviewEnv({ ...base, INPUT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k' }).ANTHROPIC_API_KEY,
    ).toBe('k');
  });
});

describe('reviewEnv on Gitea/Forgejo Actions', () => {
  const gitea = {
    GITEA_ACTIONS: 'true',
    GITHUB_TOKEN: 'gta_x',
    GITHUB_SERVER_URL: 'https://git.example',
    GITHUB_API_URL: 'https://git.example/api/v1',
    RUNNER_TEMP: '/runner/tmp',
    INPUT_PROVIDER: 'anthropic',
    INPUT_KEY: 'k',
  };

  it('enables the gitea platform only, with the workflow token', () => {
    const env = reviewEnv(gitea, 'gitea');
    expect(env).toMatchObject({
      GITEA_URL: 'https://git.example',
      GITEA_TOKEN: 'gta_x',
      ANTHROPIC_API_KEY: 'k',
    });
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.CODEHOST_TOKEN).toBeUndefined();
  });

  it('needs the instance URL', () => {
    expect(() => reviewEnv({ ...gitea, GITHUB_SERVER_URL: '', GITHUB_API_URL: '' }, 'gitea')).toThrow(
      /GITHUB_SERVER_URL is not set/,
    );
  });
});
