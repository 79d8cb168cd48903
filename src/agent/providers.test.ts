import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from '../../test/support/fake-llm/index.js';
import { ConfigError } from '../errors.js';
import {
  createLanguageModel,
  PROVIDER_IDS,
  PROVIDERS,
  resolveBaseUrl,
  resolveModelChoice,
  type ProviderId,
} from './providers.js';

const KEY = 'test-key-0123456789';

describe('resolveModelChoice configuration errors', () => {
  it.each([
    ['anthropic', 'ANTHROPIC_API_KEY'],
    ['openai', 'OPENAI_API_KEY'],
    ['google', 'GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY'],
    ['deepseek', 'DEEPSEEK_API_KEY'],
    ['groq', 'GROQ_API_KEY'],
    ['together', 'TOGETHER_API_KEY'],
    ['fireworks', 'FIREWORKS_API_KEY'],
    ['openrouter', 'OPENROUTER_API_KEY'],
  ] as const)('%s without a key names %s', (provider, variable) => {
    const attempt = () => resolveModelChoice({ provider }, {});
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(`${variable} is not set`);
  });

  it('openai-compatible needs no key (a local server asks for none) and reports base URL and model together', () => {
    try {
      resolveModelChoice({ provider: 'openai-compatible' }, {});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        'agent.base_url (AGENT_BASE_URL) is required for agent.provider "openai-compatible"',
        'agent.model (AGENT_MODEL) is required for agent.provider "openai-compatible"',
      ]);
      expect((error as ConfigError).exitCode).toBe(2);
    }
  });

  it('refuses an unknown provider, naming agent.provider', () => {
    expect(() => resolveModelChoice({ provider: 'acme' as ProviderId }, {})).toThrow(
      /agent\.provider.*"acme"/,
    );
  });

  it('createLanguageModel rejects with the same ConfigError', async () => {
    await expect(createLanguageModel({ provider: 'anthropic' }, {})).rejects.toThrow(
      'ANTHROPIC_API_KEY is not set',
    );
  });

  it('accepts GEMINI_API_KEY for google and uses each provider default model', async () => {
    expect((await createLanguageModel({ provider: 'google' }, { GEMINI_API_KEY: KEY })).modelId).toBe(
      'gemini-3.8-flash',
    );
    for (const provider of PROVIDER_IDS.filter((id) => id !== 'openai-compatible')) {
      const env = { [PROVIDERS[provider].keyVars[0] as string]: KEY };
      const created = await createLanguageModel({ provider }, env);
      expect(created.modelId).toBe(PROVIDERS[provider].defaultModel);
      expect(typeof created.model === 'object' && created.model.provider).toContain(
        provider === 'google' ? 'google' : provider,
      );
    }
  });
});

describe('resolveBaseUrl', () => {
  it.each([
    ['anthropic', undefined, {}, 'https://api.anthropic.com/v1'],
    ['anthropic', undefined, { ANTHROPIC_BASE_URL: 'http://proxy:8080/' }, 'http://proxy:8080/v1'],
    ['anthropic', undefined, { ANTHROPIC_BASE_URL: 'http://proxy:8080/v1' }, 'http://proxy:8080/v1'],
    ['anthropic', 'http://agent/api', { ANTHROPIC_BASE_URL: 'http://proxy' }, 'http://agent/api'],
    ['anthropic', undefined, { OPENAI_BASE_URL: 'http://other/v1' }, 'https://api.anthropic.com/v1'],
    ['openai', undefined, {}, 'https://api.openai.com/v1'],
    ['openai', undefined, { OPENAI_BASE_URL: 'http://proxy/v1' }, 'http://proxy/v1'],
    ['openai', 'http://agent/v1/', { OPENAI_BASE_URL: 'http://proxy/v1' }, 'http://agent/v1'],
    ['google', undefined, {}, 'https://generativelanguage.googleapis.com/v1beta'],
    ['deepseek', undefined, { OPENAI_BASE_URL: 'http://proxy/v1' }, 'https://api.deepseek.com/v1'],
    ['groq', undefined, {}, 'https://api.groq.com/openai/v1'],
    ['together', undefined, {}, 'https://api.together.xyz/v1'],
    ['fireworks', undefined, {}, 'https://api.fireworks.ai/inference/v1'],
    ['openrouter', undefined, {}, 'https://openrouter.ai/api/v1'],
    ['openai-compatible', undefined, {}, undefined],
    ['openai-compatible', 'http://localhost:11434/v1', {}, 'http://localhost:11434/v1'],
  ] as const)('%s with baseUrl %s and env %j → %s', (provider, baseUrl, env, expected) => {
    expect(resolveBaseUrl({ provider, baseUrl }, env)).toBe(expected);
  });
});

describe('createLanguageModel over HTTP', () => {
  let anthropic: FakeLlm;
  let openai: FakeLlm;
  let local: FakeLlm;

  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ apiKey: KEY });
    openai = await startFakeOpenAI({ apiKey: KEY });
    local = await startFakeOpenAI({ apiKey: null });
  });

  afterAll(async () => {
    await anthropic.close();
    await openai.close();
    await local.close();
  });

  it('openai-compatible without AGENT_API_KEY reaches a keyless local server and sends no Authorization', async () => {
    local.setScript([{ text: 'pong' }]);
    const choice = {
      provider: 'openai-compatible',
      model: 'qwen3-coder',
      baseUrl: `${local.url}/v1`,
    } as const;
    expect(resolveModelChoice(choice, {}).apiKey).toBeUndefined();
    const { model } = await createLanguageModel(choice, {});
    expect((await generateText({ model, prompt: 'ping', maxRetries: 0 })).text).toBe('pong');
    expect(local.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      model: 'qwen3-coder',
      status: 200,
    });
    expect(local.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('reaches ANTHROPIC_BASE_URL given without /v1, with the key from env', async () => {
    anthropic.setScript([{ text: 'pong' }]);
    const { model } = await createLanguageModel(
      { provider: 'anthropic', model: 'claude-test' },
      { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url },
    );
    const result = await generateText({ model, prompt: 'ping', maxRetries: 0 });
    expect(result.text).toBe('pong');
    expect(anthropic.requests.at(-1)).toMatchObject({
      path: '/v1/messages',
      model: 'claude-test',
      status: 200,
    });
  });

  it('prefers AGENT_BASE_URL over ANTHROPIC_BASE_URL', async () => {
    anthropic.setScript([{ text: 'pong' }]);
    const { model } = await createLanguageModel(
      { provider: 'anthropic', model: 'claude-test', baseUrl: `${anthropic.url}/v1` },
      { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    );
    expect((await generateText({ model, prompt: 'ping', maxRetries: 0 })).text).toBe('pong');
  });

  it.each([
    ['openai', { OPENAI_API_KEY: KEY }, 'OPENAI_BASE_URL'],
    ['groq', { GROQ_API_KEY: KEY }, 'baseUrl'],
    ['openai-compatible', { AGENT_API_KEY: KEY }, 'baseUrl'],
  ] as const)('%s talks Chat Completions to the configured URL', async (provider, keys, via) => {
    openai.setScript([{ text: 'pong' }]);
    const url = `${openai.url}/v1`;
    const { model } = await createLanguageModel(
      { provider, model: 'gpt-x', ...(via === 'baseUrl' ? { baseUrl: url } : {}) },
      { ...keys, ...(via === 'OPENAI_BASE_URL' ? { OPENAI_BASE_URL: url } : {}) },
    );
    expect((await generateText({ model, prompt: 'ping', maxRetries: 0 })).text).toBe('pong');
    expect(openai.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      model: 'gpt-x',
      status: 200,
    });
  });

  it('sends requests through the given fetch', async () => {
    anthropic.setScript([{ text: 'pong' }]);
    const seen: string[] = [];
    const spy: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const { model } = await createLanguageModel(
      { provider: 'anthropic', model: 'claude-test', baseUrl: `${anthropic.url}/v1` },
      { ANTHROPIC_API_KEY: KEY },
      spy,
    );
    await generateText({ model, prompt: 'ping', maxRetries: 0 });
    expect(seen).toEqual([`${anthropic.url}/v1/messages`]);
  });
});
