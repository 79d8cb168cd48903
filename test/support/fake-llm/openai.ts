/**
 * Fake OpenAI Chat Completions API (`POST /v1/chat/completions`), streaming (`data:` chunks, a
 * usage chunk when `stream_options.include_usage`, then `data: [DONE]`) and non-streaming, plus
 * `GET /v1/models[/<id>]`. Wire format as parsed by `@ai-sdk/openai` (`openaiChatResponseSchema`,
 * `openaiChatChunkSchema`), which `@ai-sdk/openai-compatible` shares.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { normalizeOpenAIRequest, validateOpenAIRequest } from './openai-validate.js';
import { startFakeServer } from './server.js';
import type { OtherResponse, ProtocolAdapter, ReplyContext, WireError } from './server.js';
import { sendJson, splitText, sseFrame, startSse, writeFrames } from './sse.js';
import type { FakeLlm, FakeLlmOptions, ScriptedReply } from './types.js';

const MODELS = ['gpt-6-sol', 'gpt-x', 'qwen3'];

function id(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

function errorBody(error: WireError): unknown {
  const type =
    error.status >= 500 ? 'server_error' : error.status === 429 ? 'requests' : 'invalid_request_error';
  const code =
    error.code ??
    (error.status === 401 ? 'invalid_api_key' : error.status === 429 ? 'rate_limit_exceeded' : null);
  return { error: { message: error.message, type, param: error.param ?? null, code } };
}

function checkAuth(headers: IncomingHttpHeaders, apiKey: string): string | undefined {
  const auth = headers.authorization;
  if (auth === `Bearer ${apiKey}`) return undefined;
  if (auth === undefined || auth === '' || auth === 'Bearer') {
    return "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
  }
  return 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.';
}

interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

function toolCallsOf(reply: ScriptedReply): WireToolCall[] {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? id('call_'),
    name: call.name,
    arguments: JSON.stringify(call.input),
  }));
}

function usageJson(usage: ReplyContext['usage']): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

async function writeOpenAIReply(
  res: ServerResponse,
  reply: ScriptedReply,
  context: ReplyContext,
): Promise<void> {
  const calls = toolCallsOf(reply);
  const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
  const base = { id: id('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: context.request.model };
  const headers = { 'x-request-id': id('req_') };
  const text = reply.text ?? (calls.length > 0 ? null : '');
  if (!context.request.stream) {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: text,
      refusal: null,
      annotations: [],
    };
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    const body = {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: usageJson(context.usage),
      system_fingerprint: 'fp_fake',
    };
    sendJson(res, 200, body, headers);
    return;
  }
  startSse(res, headers);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sseFrame({
      ...base,
      object: 'chat.completion.chunk',
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const frames = [chunk({ role: 'assistant', content: text === null ? null : '', refusal: null })];
  for (const piece of splitText(text ?? '', 3)) frames.push(chunk({ content: piece }));
  for (const [index, call] of calls.entries()) {
    const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    frames.push(chunk({ tool_calls: [head] }));
    for (const piece of splitText(call.arguments, 3)) {
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  frames.push(chunk({}, finishReason));
  const options = context.body?.stream_options as { include_usage?: unknown } | undefined;
  if (options?.include_usage === true) {
    frames.push(
      sseFrame({
        ...base,
        object: 'chat.completion.chunk',
        system_fingerprint: 'fp_fake',
        choices: [],
        usage: usageJson(context.usage),
      }),
    );
  }
  frames.push(sseFrame('[DONE]'));
  await writeFrames(res, frames);
}

function modelInfo(modelId: string): Record<string, unknown> {
  return { id: modelId, object: 'model', created: 1_700_000_000, owned_by: 'openai' };
}

/**
 * OpenAI's answer to a model id it does not serve: 404 `invalid_request_error`, code
 * `model_not_found`.
 */
function unknownModel(model: string): WireError {
  return {
    status: 404,
    message: `The model \`${model}\` does not exist or you do not have access to it.`,
    code: 'model_not_found',
  };
}

function handleOther(
  method: string,
  pathname: string,
  _body: unknown,
  serves: (model: string) => boolean,
): OtherResponse {
  if (method === 'GET' && pathname === '/v1/models') {
    return { status: 200, body: { object: 'list', data: MODELS.filter(serves).map(modelInfo) } };
  }
  const model = /^\/v1\/models\/([^/]+)$/.exec(pathname);
  if (method === 'GET' && model?.[1] !== undefined) {
    const modelId = decodeURIComponent(model[1]);
    if (!serves(modelId)) return { status: 404, body: errorBody(unknownModel(modelId)) };
    return { status: 200, body: modelInfo(modelId) };
  }
  return { status: 404, body: errorBody({ status: 404, message: `Invalid URL (${method} ${pathname})` }) };
}

/** The OpenAI Chat Completions protocol adapter (exported for tests of the fake itself). */
export const openaiAdapter: ProtocolAdapter = {
  protocol: 'openai',
  isModelPath: (pathname) => pathname === '/v1/chat/completions',
  checkAuth,
  errorBody,
  responseHeaders: () => ({ 'x-request-id': id('req_') }),
  validate: (body) => validateOpenAIRequest(body),
  normalize: normalizeOpenAIRequest,
  handleOther,
  unknownModel,
  writeReply: writeOpenAIReply,
};

/**
 * Starts a fake OpenAI Chat Completions API on 127.0.0.1. Requests need
 * `Authorization: Bearer <apiKey>`, else 401 (`invalid_api_key`); with `apiKey: null` none (a local
 * server such as Ollama or vLLM). Malformed requests get 400
 * `invalid_request_error` as the real API would answer; an exhausted script 500 `server_error`
 * "fake LLM: script exhausted". SDK base URL (and `OPENAI_BASE_URL`): `url + '/v1'`.
 */
export function startFakeOpenAI(options: FakeLlmOptions): Promise<FakeLlm> {
  return startFakeServer(openaiAdapter, options);
}
