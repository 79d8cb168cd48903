/**
 * The fake OpenAI server on the wire: raw chunks ending in [DONE], the 400s a broken agent loop
 * gets from the real API, auth and auxiliary endpoints.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './index.js';
import type { FakeLlm } from './index.js';
import { readSse, send } from './wire-client.js';
import type { Loose } from './wire-client.js';

const KEY = 'wire-key-3e2d1c0b9a';
const OPENAI_HEADERS = { authorization: `Bearer ${KEY}` };

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

function url(): string {
  if (!llm) throw new Error('no fake running');
  return llm.url;
}

describe('fake OpenAI on the wire', () => {
  it.each([true, false])('streams chunks ending in [DONE] (include_usage: %s)', async (includeUsage) => {
    llm = await startFakeOpenAI({
      apiKey: KEY,
      script: [{ toolCalls: [{ id: 'call_z', name: 'Grep', input: { pattern: 'TODO', glob: '*.ts' } }] }],
    });
    const body = {
      model: 'gpt-x',
      stream: true,
      messages: [{ role: 'user', content: 'find todos' }],
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    };
    const { contentType, frames } = await readSse(url(), '/v1/chat/completions', body, OPENAI_HEADERS);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((f) => f.data);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_z', type: 'function', function: { name: 'Grep' } });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((c: Loose) => c.function.arguments).join(''))).toEqual({
      pattern: 'TODO',
      glob: '*.ts',
    });
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.some((c) => c.usage)).toBe(includeUsage);
  });

  const call = { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } };
  const withCall = { role: 'assistant', content: null, tool_calls: [call] };
  it.each([
    [
      'a valid tool round trip',
      200,
      [{ role: 'user', content: 'x' }, withCall, { role: 'tool', tool_call_id: 'c1', content: 'a' }],
      undefined,
    ],
    [
      'a tool call with no tool message',
      400,
      [{ role: 'user', content: 'x' }, withCall, { role: 'user', content: 'y' }],
      'did not have response messages: c1',
    ],
    [
      'a tool call as the last message',
      400,
      [{ role: 'user', content: 'x' }, withCall],
      'did not have response messages: c1',
    ],
    [
      'a tool message with no call',
      400,
      [
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'c1', content: 'a' },
      ],
      "must be a response to a preceeding message with 'tool_calls'",
    ],
    [
      'a tool message for another call',
      400,
      [{ role: 'user', content: 'x' }, withCall, { role: 'tool', tool_call_id: 'c2', content: 'a' }],
      "'tool_call_id' of 'c2' not found",
    ],
    ['an unknown role', 400, [{ role: 'robot', content: 'x' }], "Invalid value: 'robot'"],
    ['no messages', 400, [], 'empty array'],
  ])('answers %s with %i', async (_name, status, messages, message) => {
    llm = await startFakeOpenAI({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(url(), '/v1/chat/completions', { model: 'gpt-x', messages }, OPENAI_HEADERS);
    expect(answer.status).toBe(status);
    if (message === undefined) {
      expect(answer.json).toMatchObject({
        object: 'chat.completion',
        choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }],
      });
      expect(llm.requests[0]?.toolResults).toEqual([
        { toolCallId: 'c1', toolName: 'Read', content: 'a', isError: false },
      ]);
    } else {
      expect(answer.json).toMatchObject({ error: { type: 'invalid_request_error' } });
      expect(answer.json.error.message).toContain(message);
    }
  });

  it.each([
    ['no model', { messages: [{ role: 'user', content: 'x' }] }, 'you must provide a model parameter'],
    [
      'stream_options without stream',
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } },
      "'stream_options' parameter is only allowed",
    ],
  ])('answers a request with %s with 400', async (_name, body, message) => {
    llm = await startFakeOpenAI({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(url(), '/v1/chat/completions', body, OPENAI_HEADERS);
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toContain(message);
  });

  it('refuses an Anthropic-style x-api-key with 401 invalid_api_key', async () => {
    llm = await startFakeOpenAI({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(
      url(),
      '/v1/chat/completions',
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      { 'x-api-key': KEY },
    );
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
  });

  it('lists models and answers unknown paths with 404', async () => {
    llm = await startFakeOpenAI({ apiKey: KEY });
    const models = await send(url(), '/v1/models', undefined, OPENAI_HEADERS, 'GET');
    expect(models).toMatchObject({ status: 200, json: { object: 'list' } });
    const unknown = await send(url(), '/v1/responses', {}, OPENAI_HEADERS);
    expect(unknown).toMatchObject({
      status: 404,
      json: { error: { message: 'Invalid URL (POST /v1/responses)' } },
    });
  });
});
