/**
 * The fake LLMs serve known model ids only, as the real APIs do: an unknown id gets Anthropic's
 * 404 `not_found_error` or OpenAI's 404 `model_not_found`, on the model endpoint and on the model
 * lookup, and never reaches the script.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../../src/agent/providers.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from './index.js';
import { DEFAULT_FAKE_MODELS } from './models.js';
import { send } from './wire-client.js';

const KEY = 'models-key-0a1b2c3d';
const ANTHROPIC = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
const OPENAI = { authorization: `Bearer ${KEY}` };
const USER = [{ role: 'user', content: 'hi' }];

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe('model ids the fake LLMs serve', () => {
  it('Anthropic: 404 not_found_error for an unknown model, the script untouched', async () => {
    llm = await startFakeAnthropic({ apiKey: KEY, script: [{ text: 'ok' }] });
    const unknown = await send(
      llm.url,
      '/v1/messages',
      { model: 'claude-nope-9', max_tokens: 16, messages: USER },
      ANTHROPIC,
    );
    expect(unknown).toEqual({
      status: 404,
      json: {
        type: 'error',
        error: { type: 'not_found_error', message: 'model: claude-nope-9' },
        request_id: expect.any(String),
      },
    });
    expect(llm.requests[0]).toMatchObject({ model: 'claude-nope-9', status: 404 });
    // The scripted reply is still the first one served.
    const ok = await send(
      llm.url,
      '/v1/messages',
      { model: 'claude-sonnet-5-5', max_tokens: 16, messages: USER },
      ANTHROPIC,
    );
    expect(ok.status).toBe(200);
    expect(ok.json.content[0].text).toBe('ok');
    expect((await send(llm.url, '/v1/models/claude-nope-9', undefined, ANTHROPIC, 'GET')).status).toBe(404);
    expect((await send(llm.url, '/v1/models/claude-sonnet-5-5', undefined, ANTHROPIC, 'GET')).status).toBe(
      200,
    );
  });

  it('OpenAI: 404 model_not_found for an unknown model', async () => {
    llm = await startFakeOpenAI({ apiKey: KEY, script: [{ text: 'ok' }] });
    const unknown = await send(
      llm.url,
      '/v1/chat/completions',
      { model: 'gpt-nope', messages: USER },
      OPENAI,
    );
    expect(unknown).toEqual({
      status: 404,
      json: {
        error: {
          message: 'The model `gpt-nope` does not exist or you do not have access to it.',
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      },
    });
    expect(
      (await send(llm.url, '/v1/chat/completions', { model: 'gpt-x', messages: USER }, OPENAI)).status,
    ).toBe(200);
    const listed = await send(llm.url, '/v1/models', undefined, OPENAI, 'GET');
    expect(listed.json.data.map((m: { id: string }) => m.id)).toEqual(['gpt-6-sol', 'gpt-x', 'qwen3']);
  });

  it('serves exactly the models a test names when it names them', async () => {
    llm = await startFakeOpenAI({ apiKey: KEY, script: [{ text: 'ok' }], models: ['only-this'] });
    expect(
      (await send(llm.url, '/v1/chat/completions', { model: 'gpt-x', messages: USER }, OPENAI)).status,
    ).toBe(404);
    expect(
      (await send(llm.url, '/v1/chat/completions', { model: 'only-this', messages: USER }, OPENAI)).status,
    ).toBe(200);
  });

  it("serves every provider's default model by default", () => {
    for (const info of Object.values(PROVIDERS)) {
      if (info.defaultModel !== '') expect(DEFAULT_FAKE_MODELS).toContain(info.defaultModel);
    }
    expect(DEFAULT_FAKE_MODELS).not.toContain('');
  });
});
