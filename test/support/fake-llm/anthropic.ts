/**
 * Fake Anthropic Messages API (`POST /v1/messages`, with or without `?beta=true`), streaming and
 * non-streaming, plus `POST /v1/messages/count_tokens` and `GET /v1/models[/<id>]`. Wire format as
 * parsed by `@ai-sdk/anthropic` (`anthropicResponseSchema`, `anthropicChunkSchema`) and the
 * Messages streaming reference: message_start, content_block_start/delta/stop, message_delta,
 * message_stop. Prompt caching is accounted as the real API does (`anthropic-cache.ts`).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createPromptCache } from './anthropic-cache.js';
import { normalizeAnthropicRequest, validateAnthropicRequest } from './anthropic-validate.js';
import { startFakeServer } from './server.js';
import type { OtherResponse, ProtocolAdapter, ReplyContext, WireError } from './server.js';
import { estimateTokens, sendJson, splitText, sseFrame, startSse, writeFrames } from './sse.js';
import type { FakeLlm, FakeLlmOptions, ScriptedReply } from './types.js';

/** Error `type` of each HTTP status (Anthropic "Errors" reference). */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Models listed by `GET /v1/models` (the fake serves these and the others of its `models`). */
const MODELS = ['claude-sonnet-5-5', 'claude-sonnet-4-5', 'claude-haiku-4-5'];

function id(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function modelInfo(modelId: string): Record<string, unknown> {
  return { type: 'model', id: modelId, display_name: modelId, created_at: '2025-01-01T00:00:00Z' };
}

interface ContentBlock {
  type: 'text' | 'tool_use';
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
}

function contentOf(reply: ScriptedReply): ContentBlock[] {
  const calls = reply.toolCalls ?? [];
  const blocks: ContentBlock[] = [];
  if (reply.text !== undefined || calls.length === 0) blocks.push({ type: 'text', text: reply.text ?? '' });
  for (const call of calls)
    blocks.push({ type: 'tool_use', id: call.id ?? id('toolu_'), name: call.name, input: call.input });
  return blocks;
}

function usageJson(usage: ReplyContext['usage']): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    service_tier: 'standard',
  };
}

function blockFrames(index: number, block: ContentBlock): string[] {
  const frames: string[] = [];
  const delta = (d: Record<string, unknown>): string =>
    sseFrame({ type: 'content_block_delta', index, delta: d }, 'content_block_delta');
  if (block.type === 'text') {
    frames.push(
      sseFrame(
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        'content_block_start',
      ),
    );
    for (const piece of splitText(block.text ?? '', 3))
      frames.push(delta({ type: 'text_delta', text: piece }));
  } else {
    const start = { type: 'tool_use', id: block.id, name: block.name, input: {} };
    frames.push(
      sseFrame({ type: 'content_block_start', index, content_block: start }, 'content_block_start'),
    );
    frames.push(delta({ type: 'input_json_delta', partial_json: '' }));
    for (const piece of splitText(JSON.stringify(block.input ?? {}), 3)) {
      frames.push(delta({ type: 'input_json_delta', partial_json: piece }));
    }
  }
  frames.push(sseFrame({ type: 'content_block_stop', index }, 'content_block_stop'));
  return frames;
}

async function writeAnthropicReply(
  res: ServerResponse,
  reply: ScriptedReply,
  context: ReplyContext,
): Promise<void> {
  const content = contentOf(reply);
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const messageId = id('msg_');
  const model = context.request.model;
  const headers = { 'request-id': id('req_') };
  if (!context.request.stream) {
    const message = {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usageJson(context.usage),
    };
    sendJson(res, 200, message, headers);
    return;
  }
  startSse(res, headers);
  const startUsage = { ...usageJson(context.usage), output_tokens: 1 };
  const frames = [
    sseFrame(
      {
        type: 'message_start',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: startUsage,
        },
      },
      'message_start',
    ),
    sseFrame({ type: 'ping' }, 'ping'),
  ];
  for (const [index, block] of content.entries()) frames.push(...blockFrames(index, block));
  frames.push(
    sseFrame(
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: usageJson(context.usage),
      },
      'message_delta',
    ),
    sseFrame({ type: 'message_stop' }, 'message_stop'),
  );
  await writeFrames(res, frames);
}

function checkAuth(headers: IncomingHttpHeaders, apiKey: string): string | undefined {
  const key = headers['x-api-key'];
  const bearer = headers.authorization;
  if (key === apiKey || bearer === `Bearer ${apiKey}`) return undefined;
  if (key === undefined && bearer === undefined) return 'x-api-key header is required';
  return key === undefined ? 'Invalid bearer token' : 'invalid x-api-key';
}

function errorBody(error: WireError): unknown {
  return {
    type: 'error',
    error: { type: errorType(error.status), message: error.message },
    request_id: id('req_'),
  };
}

function handleOther(
  method: string,
  pathname: string,
  body: unknown,
  serves: (model: string) => boolean,
): OtherResponse {
  if (method === 'POST' && pathname === '/v1/messages/count_tokens') {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    return {
      status: 200,
      body: { input_tokens: estimateTokens(JSON.stringify([b.system, b.messages, b.tools])) },
    };
  }
  if (method === 'GET' && pathname === '/v1/models') {
    const listed = MODELS.filter(serves);
    return {
      status: 200,
      body: { data: listed.map(modelInfo), has_more: false, first_id: listed[0], last_id: listed.at(-1) },
    };
  }
  const model = /^\/v1\/models\/([^/]+)$/.exec(pathname);
  if (method === 'GET' && model?.[1] !== undefined) {
    const modelId = decodeURIComponent(model[1]);
    if (!serves(modelId)) return { status: 404, body: errorBody(unknownModel(modelId)) };
    return { status: 200, body: modelInfo(modelId) };
  }
  return { status: 404, body: errorBody({ status: 404, message: `Not Found: ${method} ${pathname}` }) };
}

/** Anthropic's answer to a model id it does not serve: 404 `not_found_error`, "model: <id>". */
function unknownModel(model: string): WireError {
  return { status: 404, message: `model: ${model}` };
}

/** The Anthropic Messages protocol adapter (exported for tests of the fake itself). */
export const anthropicAdapter: ProtocolAdapter = {
  protocol: 'anthropic',
  isModelPath: (pathname) => pathname === '/v1/messages',
  checkAuth,
  errorBody,
  responseHeaders: () => ({ 'request-id': id('req_') }),
  validate: validateAnthropicRequest,
  normalize: normalizeAnthropicRequest,
  handleOther,
  unknownModel,
  writeReply: writeAnthropicReply,
};

/**
 * The adapter of one fake server, with its own prompt cache: a reply without scripted `usage`
 * reports cache writes and reads as the real API would (`anthropic-cache.ts`).
 */
export function createAnthropicAdapter(): ProtocolAdapter {
  const cache = createPromptCache();
  return {
    ...anthropicAdapter,
    usageOf: (body, outputTokens) => ({ ...cache.account(body), outputTokens }),
  };
}

/**
 * Starts a fake Anthropic API on 127.0.0.1. Requests need `x-api-key: <apiKey>` or
 * `Authorization: Bearer <apiKey>` (OAuth tokens), else 401 `authentication_error`. Malformed
 * requests get 400 `invalid_request_error` as the real API would answer; an exhausted script 500
 * `api_error` "fake LLM: script exhausted". SDK base URL: `url + '/v1'`; `ANTHROPIC_BASE_URL`: `url`.
 */
export function startFakeAnthropic(options: FakeLlmOptions): Promise<FakeLlm> {
  return startFakeServer(createAnthropicAdapter(), options);
}
