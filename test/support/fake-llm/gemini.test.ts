/**
 * The fake Gemini on the wire and through `@ai-sdk/google`: Google's error bodies for a bad key
 * (400), an unknown model (404) and malformed conversations (400), a non-streamed answer, and a
 * streamed tool round trip as the SDK parses it.
 */
import { createGoogle } from '@ai-sdk/google';
import { generateText, isStepCount, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeGemini, type FakeLlm } from './index.js';
import { send } from './wire-client.js';

const KEY = 'gemini-key-5f4e3d2c1b';
const HEADERS = { 'x-goog-api-key': KEY };
const MODEL = 'gemini-test';
const path = (model = MODEL, method = 'generateContent') => `/v1beta/models/${model}:${method}`;
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe('fake Gemini', () => {
  it('answers generateContent with a candidate, a finish reason and usage', async () => {
    llm = await startFakeGemini({
      apiKey: KEY,
      script: [{ text: 'Looks good.', usage: { inputTokens: 7, outputTokens: 3 } }],
    });
    const answer = await send(llm.url, path(), { contents: [user('review this')] }, HEADERS);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Looks good.' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 },
    });
    expect(llm.requests[0]).toMatchObject({
      protocol: 'gemini',
      model: MODEL,
      stream: false,
      messages: [{ role: 'user', text: 'review this' }],
    });
  });

  it.each([
    ['no key', {}, 400, 'INVALID_ARGUMENT', /API key not valid/],
    ['a wrong key', { 'x-goog-api-key': 'nope' }, 400, 'INVALID_ARGUMENT', /API key not valid/],
  ])('refuses %s', async (_name, headers, status, code, message) => {
    llm = await startFakeGemini({ apiKey: KEY, script: [{ text: 'x' }] });
    const answer = await send(llm.url, path(), { contents: [user('x')] }, headers);
    expect(answer.status).toBe(status);
    expect(answer.json.error).toMatchObject({
      code: status,
      status: code,
      message: expect.stringMatching(message),
    });
  });

  it('answers an unknown model with 404 NOT_FOUND, on generateContent and on the model lookup', async () => {
    llm = await startFakeGemini({ apiKey: KEY, script: [{ text: 'x' }] });
    const answer = await send(llm.url, path('gemini-nope'), { contents: [user('x')] }, HEADERS);
    expect(answer.status).toBe(404);
    expect(answer.json.error).toMatchObject({
      status: 'NOT_FOUND',
      message: expect.stringMatching(/^models\/gemini-nope is not found/),
    });
    expect((await send(llm.url, '/v1beta/models/gemini-nope', undefined, HEADERS, 'GET')).status).toBe(404);
    expect((await send(llm.url, `/v1beta/models/${MODEL}`, undefined, HEADERS, 'GET')).status).toBe(200);
  });

  it.each([
    ['no contents', { contents: [] }, /contents is not specified/],
    ['an empty turn', { contents: [{ role: 'user', parts: [] }] }, /parts must not be empty/],
    ['an unknown role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, /valid role/],
    [
      'an unanswered function call',
      {
        contents: [
          user('x'),
          { role: 'model', parts: [{ functionCall: { name: 'Read', args: {} } }] },
          user('next'),
        ],
      },
      /function call turn/,
    ],
    [
      'a function response without its call',
      { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'Read', response: {} } }] }] },
      /number of function response parts/,
    ],
    [
      'a bad function name',
      { contents: [user('x')], tools: [{ functionDeclarations: [{ name: '1bad' }] }] },
      /invalid name/,
    ],
  ])('refuses %s with 400 INVALID_ARGUMENT', async (_name, body, message) => {
    llm = await startFakeGemini({ apiKey: KEY, script: [{ text: 'x' }] });
    const answer = await send(llm.url, path(), body, HEADERS);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(message),
    });
  });

  it('answers a tool round trip that @ai-sdk/google parses, signing Gemini 3 function calls', async () => {
    llm = await startFakeGemini({
      apiKey: KEY,
      script: [
        { text: 'Reading it.', toolCalls: [{ name: 'lookup', input: { key: 'a' } }] },
        { text: 'The value is 1.' },
      ],
    });
    const google = createGoogle({ apiKey: KEY, baseURL: `${llm.url}/v1beta` });
    const result = await generateText({
      model: google('gemini-3.8-flash'),
      prompt: 'what is a?',
      tools: {
        lookup: tool({
          inputSchema: z.object({ key: z.string() }),
          execute: ({ key }) => Promise.resolve({ value: key === 'a' ? 1 : 0 }),
        }),
      },
      stopWhen: isStepCount(3),
    });
    expect(result.text).toBe('The value is 1.');
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.toolResults).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: 'lookup',
        content: expect.stringContaining('"value":1'),
        isError: false,
      },
    ]);
    const replayed = (
      llm.requests[1]!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }
    ).contents
      .find((c) => c.role === 'model')!
      .parts.find((p) => p.functionCall);
    expect(replayed?.thoughtSignature).toEqual(expect.any(String));
  });
});
