/**
 * The protocol-independent part of the fake LLM servers: an HTTP server on 127.0.0.1 that reads the
 * body, checks the key, validates the request, records it, takes the next scripted reply and hands
 * it to the protocol adapter to put on the wire.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { servesModel } from './models.js';
import { estimateTokens, sendJson } from './sse.js';
import type {
  FakeLlm,
  FakeLlmOptions,
  RecordedLlmRequest,
  RecordedOtherRequest,
  Script,
  ScriptedReply,
} from './types.js';

/** Largest request body accepted (bytes); larger ones get 413. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** An error the fake answers with: HTTP status, message, and for OpenAI the offending `param`/`code`. */
export interface WireError {
  status: number;
  message: string;
  param?: string | null;
  code?: string | null;
}

/** The fields of a recorded request that depend on the protocol. */
export type NormalizedRequest = Pick<
  RecordedLlmRequest,
  'stream' | 'model' | 'system' | 'messages' | 'toolNames' | 'toolResults'
>;

/** What an adapter needs to write a reply: the parsed request, its normalized form and token usage. */
export interface ReplyContext {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON request body
  body: any;
  request: NormalizedRequest;
  /** `inputTokens`: uncached input (Anthropic's `input_tokens`); cache fields where the protocol has them. */
  usage: ReplyUsage;
}

/** Token usage of one reply. */
export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens?: number;
  cacheReadTokens?: number;
}

/** Answer of an auxiliary endpoint (token counting, model list, 404). */
export interface OtherResponse {
  status: number;
  body: unknown;
}

/** One wire protocol (Anthropic Messages or OpenAI Chat Completions). */
export interface ProtocolAdapter {
  protocol: RecordedLlmRequest['protocol'];
  /** True when `pathname` (query removed) is the model endpoint. */
  isModelPath(pathname: string): boolean;
  /** `undefined` when the request carries the key, else the refusal's message (never containing a key). */
  checkAuth(headers: IncomingHttpHeaders, apiKey: string, url: URL): string | undefined;
  /** HTTP status of a refused key (default 401; Gemini answers 400). */
  authStatus?: number;
  /** The provider's error JSON for `error`. */
  errorBody(error: WireError): unknown;
  /** Headers every response carries (request ids). */
  responseHeaders(): Record<string, string>;
  /** The first reason the real API would refuse `body` with 400, or `undefined`. */
  validate(body: unknown, options: FakeLlmOptions): WireError | undefined;
  /** Normalizes a body (of a request to `pathname`); must not throw on malformed input. */
  normalize(body: unknown, pathname: string): NormalizedRequest;
  /**
   * Answers any authorized request that is not for the model endpoint; `serves` tells the model
   * ids the fake serves (for the model lookup, 404 for others).
   */
  handleOther(
    method: string,
    pathname: string,
    body: unknown,
    serves: (model: string) => boolean,
  ): OtherResponse;
  /** The 404 the provider answers for a model id it does not serve. */
  unknownModel(model: string): WireError;
  /**
   * Optional: usage of a request whose reply scripts none, by the protocol's own accounting (the
   * Anthropic fake's prompt cache); default: an estimate of the whole request as input.
   */
  usageOf?(body: unknown, outputTokens: number): ReplyUsage;
  /** Writes `reply` (no error) as a streaming or non-streaming response. */
  writeReply(res: ServerResponse, reply: ScriptedReply, context: ReplyContext): Promise<void>;
}

/** Header values never recorded. */
const REDACTED_HEADERS = new Set(['x-api-key', 'authorization']);

function recordHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = REDACTED_HEADERS.has(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (raw.length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

function replyTokens(reply: ScriptedReply): number {
  let chars = reply.text ?? '';
  for (const call of reply.toolCalls ?? []) chars += call.name + JSON.stringify(call.input);
  return estimateTokens(chars);
}

function inputTokens(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 1;
  const { system, messages, tools } = body as Record<string, unknown>;
  return estimateTokens(JSON.stringify([system, messages, tools]));
}

/** Starts a fake for `adapter` on an ephemeral loopback port. */
export async function startFakeServer(adapter: ProtocolAdapter, options: FakeLlmOptions): Promise<FakeLlm> {
  const requests: RecordedLlmRequest[] = [];
  const otherRequests: RecordedOtherRequest[] = [];
  let script: Script = options.script ?? [];
  let scriptIndex = 0;
  const closing = new AbortController();
  const serves = (model: string): boolean => servesModel(model, options.models);

  function fail(res: ServerResponse, error: WireError, record?: RecordedLlmRequest): void {
    if (record) {
      record.status = error.status;
      record.errorMessage = error.message;
    }
    sendJson(res, error.status, adapter.errorBody(error), adapter.responseHeaders());
  }

  function nextReply(record: RecordedLlmRequest): ScriptedReply | WireError {
    const index = scriptIndex++;
    if (typeof script === 'function') {
      try {
        return script(record, index);
      } catch (error) {
        return { status: 500, message: `fake LLM: script function threw: ${String(error)}` };
      }
    }
    const reply = script[index];
    return reply ?? { status: 500, message: `fake LLM: script exhausted (request ${index + 1})` };
  }

  async function handleModelRequest(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
  ): Promise<void> {
    const raw = await readBody(req);
    const parsed = raw === undefined ? undefined : parseJson(raw);
    const body = parsed?.ok ? parsed.value : undefined;
    const record: RecordedLlmRequest = {
      protocol: adapter.protocol,
      path: req.url ?? pathname,
      headers: recordHeaders(req.headers),
      body,
      ...adapter.normalize(body, pathname),
      status: 0,
    };
    requests.push(record);
    const authError =
      options.apiKey === null
        ? undefined
        : adapter.checkAuth(req.headers, options.apiKey, new URL(req.url ?? '/', 'http://localhost'));
    if (authError !== undefined)
      return fail(res, { status: adapter.authStatus ?? 401, message: authError }, record);
    if (req.method !== 'POST')
      return fail(res, { status: 405, message: `Method ${req.method} not allowed` }, record);
    if (raw === undefined) return fail(res, { status: 413, message: 'Request body too large' }, record);
    if (!parsed?.ok)
      return fail(res, { status: 400, message: 'The request body is not valid JSON.' }, record);
    const invalid = adapter.validate(body, options);
    if (invalid) return fail(res, invalid, record);
    if (!serves(record.model)) return fail(res, adapter.unknownModel(record.model), record);

    const reply = nextReply(record);
    if ('status' in reply) return fail(res, reply, record);
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const waited = await sleep(reply.delayMs, true, {
        signal: AbortSignal.any([gone.signal, closing.signal]),
      }).catch(() => false);
      if (!waited) return;
    }
    if (reply.error) {
      const { status, body: errorBody, headers } = reply.error;
      const message = `fake LLM: scripted error ${status}`;
      record.status = status;
      record.errorMessage = typeof errorBody === 'string' ? errorBody : message;
      const payload = errorBody ?? adapter.errorBody({ status, message });
      return sendJson(res, status, payload, { ...adapter.responseHeaders(), ...headers });
    }
    record.status = 200;
    const usage: ReplyUsage = reply.usage ??
      adapter.usageOf?.(body, replyTokens(reply)) ?? {
        inputTokens: inputTokens(body),
        outputTokens: replyTokens(reply),
      };
    record.usage = usage;
    await adapter.writeReply(res, reply, { body, request: record, usage });
  }

  async function handleOtherRequest(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
  ): Promise<void> {
    const raw = await readBody(req);
    const parsed = raw === undefined ? undefined : parseJson(raw);
    const method = req.method ?? 'GET';
    const authError =
      options.apiKey === null
        ? undefined
        : adapter.checkAuth(req.headers, options.apiKey, new URL(req.url ?? '/', 'http://localhost'));
    const answer: OtherResponse =
      authError !== undefined
        ? {
            status: adapter.authStatus ?? 401,
            body: adapter.errorBody({ status: adapter.authStatus ?? 401, message: authError }),
          }
        : adapter.handleOther(method, pathname, parsed?.ok ? parsed.value : undefined, serves);
    otherRequests.push({ method, path: req.url ?? pathname, status: answer.status });
    sendJson(res, answer.status, answer.body, adapter.responseHeaders());
  }

  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    const handler = adapter.isModelPath(pathname) ? handleModelRequest : handleOtherRequest;
    handler(req, res, pathname).catch((error: unknown) => {
      if (!res.headersSent) fail(res, { status: 500, message: `fake LLM: internal error: ${String(error)}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    otherRequests,
    setScript(next: Script): void {
      script = next;
      scriptIndex = 0;
    },
    async close(): Promise<void> {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
