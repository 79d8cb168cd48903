/**
 * A fake Gemini API (`generativelanguage.googleapis.com/v1beta`) as `@ai-sdk/google` speaks it:
 * `POST /v1beta/models/<id>:generateContent` (one JSON answer) and
 * `:streamGenerateContent?alt=sse` (server-sent `GenerateContentResponse` chunks), the key in
 * `x-goog-api-key` (or `?key=`). Answers carry `candidates[0].content.parts` (text, then
 * `functionCall` parts; Gemini 3 models sign function calls with a `thoughtSignature`), a
 * `finishReason` and `usageMetadata`. Errors are Google's `{ error: { code, message, status } }`;
 * a bad key is 400 `INVALID_ARGUMENT` ("API key not valid"), an unknown model 404 `NOT_FOUND`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { GEMINI_MODEL_PATH, normalizeGeminiRequest, validateGeminiRequest } from './gemini-validate.js';
import {
  startFakeServer,
  type OtherResponse,
  type ProtocolAdapter,
  type ReplyContext,
  type WireError,
} from './server.js';
import { sendJson, splitText, sseFrame, startSse, writeFrames } from './sse.js';
import type { FakeLlm, FakeLlmOptions, ScriptedReply } from './types.js';

/** google.rpc.Code names by HTTP status (Google's error model). */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function errorBody(error: WireError): unknown {
  return {
    error: {
      code: error.status,
      message: error.message,
      status: STATUS_NAMES[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
    },
  };
}

/** The key goes in `x-goog-api-key` (`@ai-sdk/google`) or the `key` query parameter. */
function checkAuth(headers: IncomingHttpHeaders, apiKey: string, url?: URL): string | undefined {
  const given = headers['x-goog-api-key'] ?? url?.searchParams.get('key') ?? undefined;
  if (given === apiKey) return undefined;
  return 'API key not valid. Please pass a valid API key.';
}

/** Gemini's answer to a model it does not serve. */
function unknownModel(model: string): WireError {
  return {
    status: 404,
    message: `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
  };
}

function parts(reply: ScriptedReply, model: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (reply.text) out.push({ text: reply.text });
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    // Gemini 3 signs the first function call of a turn; the client must send it back.
    const signed = model.startsWith('gemini-3') && i === 0;
    out.push({
      functionCall: { name: call.name, args: call.input },
      ...(signed ? { thoughtSignature: randomBytes(12).toString('base64') } : {}),
    });
  }
  return out;
}

function usageMetadata(context: ReplyContext) {
  const prompt = context.usage.inputTokens + (context.usage.cacheReadTokens ?? 0);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: context.usage.outputTokens,
    totalTokenCount: prompt + context.usage.outputTokens,
  };
}

async function writeGeminiReply(
  res: ServerResponse,
  reply: ScriptedReply,
  context: ReplyContext,
): Promise<void> {
  const model = context.request.model;
  const base = { modelVersion: model, responseId: randomBytes(8).toString('hex') };
  const all = parts(reply, model);
  if (!context.request.stream) {
    sendJson(res, 200, {
      candidates: [{ content: { role: 'model', parts: all }, finishReason: 'STOP', index: 0 }],
      usageMetadata: usageMetadata(context),
      ...base,
    });
    return;
  }
  startSse(res);
  const chunk = (p: Array<Record<string, unknown>>, last: boolean) =>
    sseFrame({
      candidates: [
        { content: { role: 'model', parts: p }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
      ],
      usageMetadata: usageMetadata(context),
      ...base,
    });
  const frames: Array<Array<Record<string, unknown>>> = splitText(reply.text ?? '', 3).map((piece) => [
    { text: piece },
  ]);
  const calls = all.filter((p) => p.functionCall !== undefined);
  if (calls.length > 0) frames.push(calls);
  if (frames.length === 0) frames.push([{ text: '' }]);
  await writeFrames(
    res,
    frames.map((p, i) => chunk(p, i === frames.length - 1)),
  );
}

function handleOther(
  method: string,
  pathname: string,
  _body: unknown,
  serves: (model: string) => boolean,
): OtherResponse {
  const model = /^\/v1beta\/models\/([^/:]+)$/.exec(pathname);
  if (method === 'GET' && model?.[1] !== undefined) {
    const id = decodeURIComponent(model[1]);
    if (!serves(id)) return { status: 404, body: errorBody(unknownModel(id)) };
    return {
      status: 200,
      body: {
        name: `models/${id}`,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
      },
    };
  }
  return { status: 404, body: errorBody({ status: 404, message: `Not found: ${method} ${pathname}` }) };
}

/** The Gemini protocol adapter (exported for tests of the fake itself). */
export const geminiAdapter: ProtocolAdapter = {
  protocol: 'gemini',
  isModelPath: (pathname) => GEMINI_MODEL_PATH.test(pathname),
  checkAuth,
  authStatus: 400,
  errorBody,
  responseHeaders: () => ({}),
  validate: (body) => validateGeminiRequest(body),
  normalize: normalizeGeminiRequest,
  handleOther,
  unknownModel,
  writeReply: writeGeminiReply,
};

/**
 * Starts a fake Gemini API on 127.0.0.1. Requests need `x-goog-api-key: <apiKey>`, else 400
 * `INVALID_ARGUMENT`. SDK base URL (`AGENT_BASE_URL` with `AGENT_PROVIDER=google`): `url + '/v1beta'`.
 */
export function startFakeGemini(options: FakeLlmOptions): Promise<FakeLlm> {
  return startFakeServer(geminiAdapter, options);
}
