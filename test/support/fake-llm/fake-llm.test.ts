/**
 * The fake LLM servers driven by the real AI SDK providers: text, streaming, a tool round trip,
 * auth failures, scripted errors, retries and an exhausted script, for both wire protocols.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import type { LanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeAnthropic, startFakeOpenAI } from './index.js';
import type { FakeLlm, FakeLlmOptions } from './index.js';

const API_KEY = 'test-key-5f1c9a77d2';

interface Provider {
  name: 'anthropic' | 'openai';
  start(options: FakeLlmOptions): Promise<FakeLlm>;
  model(url: string, apiKey: string): LanguageModel;
  unauthorizedMessage: RegExp;
}

const providers: Provider[] = [
  {
    name: 'anthropic',
    start: startFakeAnthropic,
    model: (url, apiKey) => createAnthropic({ baseURL: `${url}/v1`, apiKey })('claude-sonnet-4-5'),
    unauthorizedMessage: /invalid x-api-key/,
  },
  {
    name: 'openai',
    start: startFakeOpenAI,
    model: (url, apiKey) => createOpenAI({ baseURL: `${url}/v1`, apiKey }).chat('gpt-x'),
    unauthorizedMessage: /Incorrect API key provided/,
  },
];

function readFileTool(calls: string[]) {
  return tool({
    description: 'Read a file of the repository',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      calls.push(path);
      return `contents of ${path}: export const answer = 42;`;
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<APICallError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

describe.each(providers)('fake $name server with the real SDK', (provider) => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });

  async function start(
    options: Omit<FakeLlmOptions, 'apiKey'>,
  ): Promise<{ llm: FakeLlm; model: LanguageModel }> {
    llm = await provider.start({ apiKey: API_KEY, ...options });
    return { llm, model: provider.model(llm.url, API_KEY) };
  }

  it('answers generateText with the scripted text and usage, and records the request', async () => {
    const { llm, model } = await start({
      script: [{ text: 'Looks good to me.', usage: { inputTokens: 120, outputTokens: 7 } }],
    });
    const result = await generateText({
      model,
      system: 'You review code.',
      prompt: 'Review PR #3',
      maxOutputTokens: 1000,
    });
    expect(result.text).toBe('Looks good to me.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBe(120);
    expect(result.usage.outputTokens).toBe(7);
    expect(llm.requests).toHaveLength(1);
    const request = llm.requests[0];
    expect(request).toMatchObject({
      protocol: provider.name,
      stream: false,
      system: 'You review code.',
      messages: [{ role: 'user', text: 'Review PR #3' }],
      status: 200,
    });
    expect(request?.model).toBe(provider.name === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-x');
  });

  it('streams text in several deltas', async () => {
    const text = 'The change adds a null check before dereferencing the user record.';
    const { llm, model } = await start({ script: [{ text, usage: { inputTokens: 50, outputTokens: 13 } }] });
    const result = streamText({ model, prompt: 'Summarize', maxOutputTokens: 1000 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect((await result.usage).outputTokens).toBe(13);
    expect(llm.requests[0]?.stream).toBe(true);
  });

  it.each(['generateText', 'streamText'] as const)('runs a tool round trip with %s', async (mode) => {
    const { llm, model } = await start({
      script: [
        {
          text: 'Let me read it.',
          toolCalls: [{ id: 'call-1', name: 'read_file', input: { path: 'src/a.ts' } }],
        },
        { text: 'The file exports answer = 42.' },
      ],
    });
    const calls: string[] = [];
    const options = {
      model,
      prompt: 'What does src/a.ts export?',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(3),
      maxOutputTokens: 1000,
    };
    const text =
      mode === 'generateText' ? (await generateText(options)).text : await streamText(options).text;
    expect(text).toBe('The file exports answer = 42.');
    expect(calls).toEqual(['src/a.ts']);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0]?.toolNames).toEqual(['read_file']);
    expect(llm.requests[1]?.toolResults).toEqual([
      {
        toolCallId: 'call-1',
        toolName: 'read_file',
        content: 'contents of src/a.ts: export const answer = 42;',
        isError: false,
      },
    ]);
    expect(llm.requests[1]?.messages.map((m) => m.role)).toEqual(
      provider.name === 'anthropic' ? ['user', 'assistant', 'user'] : ['user', 'assistant', 'tool'],
    );
  });

  it('refuses a wrong key with 401 in the provider error shape, without echoing the key', async () => {
    const { llm } = await start({ script: [{ text: 'never sent' }] });
    const wrongKey = 'wrong-key-0a9b8c7d6e';
    const error = await rejection(
      generateText({ model: provider.model(llm.url, wrongKey), prompt: 'hi', maxRetries: 0 }),
    );
    expect(error.statusCode).toBe(401);
    expect(error.message).toMatch(provider.unauthorizedMessage);
    expect(error.responseBody).not.toContain(wrongKey);
    expect(llm.requests[0]?.status).toBe(401);
    expect(JSON.stringify(llm.requests)).not.toContain(wrongKey);
    expect(JSON.stringify(llm.requests)).not.toContain(API_KEY);
  });

  it('reports the 401 to streamText through onError', async () => {
    const { llm } = await start({ script: [{ text: 'never sent' }] });
    const errors: unknown[] = [];
    const result = streamText({
      model: provider.model(llm.url, 'wrong-key-1'),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await expect(result.text).rejects.toThrow();
    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0]) && errors[0].statusCode).toBe(401);
  });

  it('answers a scripted 500 with the provider error shape', async () => {
    const { llm, model } = await start({ script: [{ error: { status: 500 } }] });
    const error = await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 }));
    expect(error.statusCode).toBe(500);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toBe('fake LLM: scripted error 500');
    expect(llm.requests[0]?.status).toBe(500);
  });

  it('lets the SDK retry a scripted 529/503 and succeed on the next reply', async () => {
    const status = provider.name === 'anthropic' ? 529 : 503;
    const { llm, model } = await start({
      script: [{ error: { status, headers: { 'retry-after-ms': '0' } } }, { text: 'second time lucky' }],
    });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 2, maxOutputTokens: 100 });
    expect(result.text).toBe('second time lucky');
    expect(llm.requests.map((r) => r.status)).toEqual([status, 200]);
  });

  it('sends a custom error body verbatim', async () => {
    const body = { error: { message: 'quota gone', type: 'insufficient_quota' }, type: 'error' };
    const { model } = await start({ script: [{ error: { status: 429, body } }] });
    const error = await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 }));
    expect(error.statusCode).toBe(429);
    expect(JSON.parse(error.responseBody ?? '{}')).toEqual(body);
  });

  it('fails loudly with 500 "fake LLM: script exhausted" once the script runs out', async () => {
    const { llm, model } = await start({ script: [{ text: 'only reply' }] });
    await generateText({ model, prompt: 'first', maxOutputTokens: 100 });
    const error = await rejection(generateText({ model, prompt: 'second', maxRetries: 0 }));
    expect(error.statusCode).toBe(500);
    expect(error.message).toContain('fake LLM: script exhausted');
    expect(
      llm.requests.map((r) => [r.status, r.errorMessage?.startsWith('fake LLM: script exhausted')]),
    ).toEqual([
      [200, undefined],
      [500, true],
    ]);
  });

  it('answers from a script function given the request and its index, and honours delayMs', async () => {
    const { llm, model } = await start({});
    llm.setScript((request, index) => ({
      text: `#${index}: ${request.messages.at(-1)?.text ?? ''}`,
      delayMs: 150,
    }));
    const started = Date.now();
    expect((await generateText({ model, prompt: 'ping', maxOutputTokens: 100 })).text).toBe('#0: ping');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await generateText({ model, prompt: 'pong', maxOutputTokens: 100 })).text).toBe('#1: pong');
  });

  it('close() cuts a reply still waiting on delayMs', async () => {
    const { llm, model } = await start({ script: [{ text: 'too late', delayMs: 60_000 }] });
    const pending = generateText({ model, prompt: 'hi', maxRetries: 0 });
    const failure = pending.then(
      () => 'answered',
      () => 'failed',
    );
    while (llm.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await llm.close();
    expect(await failure).toBe('failed');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('fake OpenAI server with @ai-sdk/openai-compatible', () => {
  it('streams a tool round trip and reports usage', async () => {
    const llm = await startFakeOpenAI({
      apiKey: API_KEY,
      script: [
        {
          toolCalls: [{ name: 'read_file', input: { path: 'README.md' } }],
          usage: { inputTokens: 10, outputTokens: 3 },
        },
        { text: 'It is a readme.', usage: { inputTokens: 30, outputTokens: 4 } },
      ],
    });
    try {
      const provider = createOpenAICompatible({
        name: 'local',
        baseURL: `${llm.url}/v1`,
        apiKey: API_KEY,
        includeUsage: true,
      });
      const calls: string[] = [];
      const result = streamText({
        model: provider.chatModel('qwen-coder'),
        prompt: 'What is README.md?',
        tools: { read_file: readFileTool(calls) },
        stopWhen: stepCountIs(3),
      });
      expect(await result.text).toBe('It is a readme.');
      expect(calls).toEqual(['README.md']);
      expect((await result.totalUsage).outputTokens).toBe(7);
      expect(llm.requests[1]?.toolResults[0]?.toolName).toBe('read_file');
    } finally {
      await llm.close();
    }
  });
});
