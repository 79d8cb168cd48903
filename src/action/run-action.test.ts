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

  it('an empty key input is fine when the provider key is already in the environment', () => {
    expect(
      reviewEnv({ ...base, INPUT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k' }).ANTHROPIC_API_KEY,
    ).toBe('k');
  });
});
