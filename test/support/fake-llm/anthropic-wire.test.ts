/**
 * The fake Anthropic server on the wire: raw SSE frames as Claude Code reads them, the 400s a
 * broken agent loop gets from the real API, auth variants and auxiliary endpoints.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './index.js';
import type { FakeLlm } from './index.js';
import { readSse, send } from './wire-client.js';

const KEY = 'wire-key-3e2d1c0b9a';
const ANTHROPIC_HEADERS = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

function url(): string {
  if (!llm) throw new Error('no fake running');
  return llm.url;
}

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: 'a.ts' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'text of a.ts' });

describe('fake Anthropic on the wire', () => {
  it('streams the event sequence Claude Code expects, on /v1/messages?beta=true', async () => {
    llm = await startFakeAnthropic({
      apiKey: KEY,
      script: [
        {
          text: 'Reading the file now.',
          toolCalls: [{ id: 'toolu_a', name: 'Read', input: { file_path: 'src/app.ts', limit: 40 } }],
        },
      ],
    });
    const body = { model: 'claude-sonnet-4-5', max_tokens: 4096, stream: true, messages: [user('review')] };
    const { contentType, frames, reads } = await readSse(
      url(),
      '/v1/messages?beta=true',
      body,
      ANTHROPIC_HEADERS,
    );
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(reads).toBeGreaterThan(1);
    for (const frame of frames) expect(frame.event).toBe((frame.data as { type: string }).type);
    const types = frames.map((f) => f.event);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const blocks = frames.filter((f) => f.event === 'content_block_start').map((f) => f.data.content_block);
    expect(blocks).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_a', name: 'Read', input: {} },
    ]);
    const deltas = frames.filter((f) => f.event === 'content_block_delta').map((f) => f.data.delta);
    const text = deltas.filter((d) => d.type === 'text_delta');
    const json = deltas.filter((d) => d.type === 'input_json_delta');
    expect(text.length).toBeGreaterThan(1);
    expect(text.map((d) => d.text).join('')).toBe('Reading the file now.');
    expect(json.filter((d) => d.partial_json !== '').length).toBeGreaterThan(1);
    expect(JSON.parse(json.map((d) => d.partial_json).join(''))).toEqual({
      file_path: 'src/app.ts',
      limit: 40,
    });
    expect(types.filter((t) => t === 'content_block_stop')).toHaveLength(2);
    const messageDelta = frames.find((f) => f.event === 'message_delta')?.data;
    expect(messageDelta.delta.stop_reason).toBe('tool_use');
    expect(messageDelta.usage.output_tokens).toBeGreaterThan(0);
    expect(llm.requests[0]?.path).toBe('/v1/messages?beta=true');
  });

  const valid = [user('read a.ts'), assistant([toolUse('t1')]), user([toolResult('t1')])];
  it.each([
    ['a valid tool round trip', 200, { messages: valid }, undefined],
    ['consecutive user turns (the API combines them)', 200, { messages: [user('a'), user('b')] }, undefined],
    [
      'missing max_tokens',
      400,
      { messages: [user('hi')], max_tokens: undefined },
      'max_tokens: Field required',
    ],
    ['no messages', 400, { messages: [] }, 'at least one message is required'],
    [
      'a first assistant message',
      400,
      { messages: [assistant('hi'), user('x')] },
      'first message must use the "user" role',
    ],
    [
      'an empty text block',
      400,
      { messages: [user([{ type: 'text', text: '' }])] },
      'text content blocks must be non-empty',
    ],
    [
      'a tool_use with no tool_result after it',
      400,
      { messages: [user('x'), assistant([toolUse('t1'), toolUse('t2')]), user([toolResult('t1')])] },
      '`tool_use` ids were found without `tool_result` blocks immediately after: t2',
    ],
    [
      'a tool_use as the last message',
      400,
      { messages: [user('x'), assistant([toolUse('t1')])] },
      '`tool_use` ids were found without `tool_result` blocks immediately after: t1',
    ],
    [
      'a tool_result for an unknown tool_use',
      400,
      { messages: [user('x'), assistant([toolUse('t1')]), user([toolResult('t1'), toolResult('t9')])] },
      'unexpected `tool_use_id` found in `tool_result` blocks: t9',
    ],
    [
      'text before the tool_result',
      400,
      {
        messages: [
          user('x'),
          assistant([toolUse('t1')]),
          user([{ type: 'text', text: 'note' }, toolResult('t1')]),
        ],
      },
      'ids were found without `tool_result` blocks immediately after: t1',
    ],
    [
      'a tool without input_schema',
      400,
      { messages: [user('x')], tools: [{ name: 'Read' }] },
      'input_schema: Field required',
    ],
  ])('answers %s with %i', async (_name, status, overrides, message) => {
    llm = await startFakeAnthropic({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(
      url(),
      '/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 256, ...overrides },
      ANTHROPIC_HEADERS,
    );
    expect(answer.status).toBe(status);
    if (message === undefined) {
      expect(answer.json).toMatchObject({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
      });
    } else {
      expect(answer.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(answer.json.error.message).toContain(message);
      expect(llm.requests[0]?.errorMessage).toContain(message);
    }
  });

  it('refuses consecutive user turns when strictAlternation is set', async () => {
    llm = await startFakeAnthropic({ apiKey: KEY, strictAlternation: true, script: [{ text: 'ok' }] });
    const answer = await send(
      url(),
      '/v1/messages',
      { model: 'm', max_tokens: 9, messages: [user('a'), user('b')] },
      ANTHROPIC_HEADERS,
    );
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toContain('roles must alternate');
  });

  it.each([
    ['an OAuth bearer token', { authorization: `Bearer ${KEY}` }, 200, undefined],
    ['no key', {}, 401, 'x-api-key header is required'],
    ['a wrong key', { 'x-api-key': 'nope-nope-nope' }, 401, 'invalid x-api-key'],
  ])('answers a request with %s with %i', async (_name, headers, status, message) => {
    llm = await startFakeAnthropic({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(
      url(),
      '/v1/messages',
      { model: 'm', max_tokens: 9, messages: [user('a')] },
      headers,
    );
    expect(answer.status).toBe(status);
    if (message)
      expect(answer.json).toMatchObject({ type: 'error', error: { type: 'authentication_error', message } });
    expect(llm.requests[0]?.headers['x-api-key'] ?? llm.requests[0]?.headers.authorization).toBe(
      Object.keys(headers).length > 0 ? '[redacted]' : undefined,
    );
  });

  it('answers count_tokens, models and unknown paths without using the script', async () => {
    llm = await startFakeAnthropic({ apiKey: KEY, script: [] });
    const count = await send(
      url(),
      '/v1/messages/count_tokens?beta=true',
      { model: 'm', messages: [user('hello there')] },
      ANTHROPIC_HEADERS,
    );
    expect(count.status).toBe(200);
    expect((count.json as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const models = await send(url(), '/v1/models', undefined, ANTHROPIC_HEADERS, 'GET');
    expect((models.json as { data: Array<{ type: string }> }).data[0]?.type).toBe('model');
    const unknown = await send(url(), '/v1/nothing', {}, ANTHROPIC_HEADERS);
    expect(unknown).toMatchObject({
      status: 404,
      json: { type: 'error', error: { type: 'not_found_error' } },
    });
    const unauthorized = await send(url(), '/v1/messages/count_tokens', {}, {});
    expect(unauthorized.status).toBe(401);
    expect(llm.requests).toEqual([]);
    expect(llm.otherRequests.map((r) => r.status)).toEqual([200, 200, 404, 401]);
  });

  it('answers a body that is not JSON with 400', async () => {
    llm = await startFakeAnthropic({ apiKey: KEY, script: [{ text: 'ok' }] });
    const answer = await send(url(), '/v1/messages', '{"model": ', ANTHROPIC_HEADERS);
    expect(answer).toMatchObject({ status: 400, json: { error: { type: 'invalid_request_error' } } });
  });
});
