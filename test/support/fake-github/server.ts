/**
 * The fake's request pipeline. API requests: record → latency → injected fault → authenticate →
 * find the OpenAPI operation → validate parameters and body → route → check the response against
 * the description. Git requests (`/git/...`): latency → injected fault → git smart HTTP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate, type AuthConfig } from './auth.js';
import { handleGraphql } from './graphql.js';
import {
  matchOperation,
  validateRequest,
  validateResponse,
  type MatchedOperation,
} from './openapi-validator.js';
import {
  errorBody,
  statusMessage,
  type FakeServices,
  type Identity,
  type Route,
  type RouteResult,
} from './route-types.js';
import type { RecordedRequest, Violation, ViolationKind } from './types.js';

/** A delay rule of `setLatency`. */
export interface LatencyRule {
  ms: number;
  match?: RegExp;
}

/** A one-shot fault of `failNext`. */
export interface Fault {
  method: string;
  path: RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the pipeline needs from the fake. */
export interface PipelineDeps {
  services: FakeServices;
  routes: Record<string, Route>;
  auth: AuthConfig;
  baseUrl(): string;
  handleGit(req: IncomingMessage, res: ServerResponse): void;
  requests: RecordedRequest[];
  violations: Violation[];
  latency: LatencyRule[];
  faults: Fault[];
}

const BASE_HEADERS: Record<string, string> = {
  'x-github-media-type': 'github.v3; format=json',
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': '4999',
  'x-ratelimit-used': '1',
  'x-ratelimit-resource': 'core',
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function applyLatency(deps: PipelineDeps, method: string, path: string): Promise<void> {
  const key = `${method} ${path}`;
  const ms = Math.max(0, ...deps.latency.filter((r) => !r.match || r.match.test(key)).map((r) => r.ms));
  if (ms > 0) await sleep(ms);
}

function takeFault(deps: PipelineDeps, method: string, path: string): Fault | undefined {
  const i = deps.faults.findIndex(
    (f) => (f.method === '*' || f.method.toUpperCase() === method) && f.path.test(path),
  );
  return i < 0 ? undefined : deps.faults.splice(i, 1)[0];
}

function send(res: ServerResponse, record: RecordedRequest | undefined, result: RouteResult): void {
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    'x-github-request-id': `FAKE:${Math.random().toString(16).slice(2, 10).toUpperCase()}`,
    ...result.headers,
  };
  let payload = '';
  if (result.text !== undefined) payload = result.text;
  else if (result.body !== undefined && result.status !== 204) {
    payload = JSON.stringify(result.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  if (record) record.status = result.status;
  res.writeHead(result.status, headers);
  res.end(payload);
}

function violate(deps: PipelineDeps, kind: ViolationKind, record: RecordedRequest, message: string): void {
  const v: Violation = { kind, method: record.method, path: record.path, message };
  if (record.operationId) v.operationId = record.operationId;
  deps.violations.push(v);
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  if (raw === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

async function route(
  deps: PipelineDeps,
  req: IncomingMessage,
  record: RecordedRequest,
  url: URL,
  identity: Identity,
  op: MatchedOperation,
  body: unknown,
): Promise<RouteResult> {
  const problems = validateRequest(op, url.searchParams, body);
  for (const kind of ['parameters', 'body'] as const) {
    if (problems[kind].length > 0) {
      violate(deps, kind, record, problems[kind].join('; '));
      return { status: 422, body: errorBody(422, `Invalid request.\n\n${problems[kind].join('\n')}`) };
    }
  }
  const handler = deps.routes[op.operationId];
  if (!handler) {
    violate(deps, 'unimplemented', record, `the fake does not implement ${op.operationId} (${op.template})`);
    return { status: 404, body: errorBody(404, 'Not Found') };
  }
  if (handler.auth === 'app' && identity.kind !== 'app') {
    return { status: 401, body: errorBody(401, 'A JSON web token could not be decoded') };
  }
  if (handler.auth === 'user' && identity.kind === 'app') {
    return { status: 403, body: errorBody(403, 'Resource not accessible by integration') };
  }
  const accept = String(req.headers.accept ?? '');
  const ctx = { ...deps.services, identity, params: op.params, url, body, accept };
  const result = await handler.handle(ctx);
  if (result.status < 300 && result.text === undefined) {
    const errors = validateResponse(op, result.status, result.body);
    if (errors.length > 0) violate(deps, 'response', record, errors.join('; '));
  }
  return result;
}

async function handleApi(
  deps: PipelineDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  const parsed = parseJson(raw);
  const record: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: recordedHeaders(req),
    body: parsed.ok ? parsed.value : raw,
    auth: 'none',
    status: 0,
  };
  deps.requests.push(record);
  await applyLatency(deps, method, url.pathname);
  const fault = takeFault(deps, method, url.pathname);
  if (fault) {
    send(res, record, {
      status: fault.status,
      body: fault.body ?? errorBody(fault.status, statusMessage(fault.status)),
      headers: fault.headers,
    });
    return;
  }
  const auth = authenticate(deps.auth, req.headers.authorization, Date.now());
  if (!auth.ok) {
    send(res, record, { status: 401, body: errorBody(401, auth.message) });
    return;
  }
  record.auth = auth.identity.kind;
  if (method === 'POST' && url.pathname === '/graphql') {
    record.operationId = 'graphql';
    const violateGraphql = (message: string) => violate(deps, 'body', record, message);
    send(
      res,
      record,
      await handleGraphql(
        deps.services.state,
        auth.identity,
        parsed.ok ? parsed.value : undefined,
        violateGraphql,
      ),
    );
    return;
  }
  const op = matchOperation(method, url.pathname);
  if (!op) {
    violate(deps, 'unknown-operation', record, `GitHub has no operation ${method} ${url.pathname}`);
    send(res, record, { status: 404, body: errorBody(404, 'Not Found') });
    return;
  }
  record.operationId = op.operationId;
  if (!parsed.ok) {
    violate(deps, 'body', record, 'request body is not JSON');
    send(res, record, { status: 400, body: errorBody(400, 'Problems parsing JSON') });
    return;
  }
  send(res, record, await route(deps, req, record, url, auth.identity, op, parsed.value));
}

/** A `node:http` request listener running the pipeline; internal errors answer 500 and are recorded. */
export function createRequestListener(
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', deps.baseUrl());
    const method = (req.method ?? 'GET').toUpperCase();
    const run = async () => {
      if (url.pathname.startsWith('/git/')) {
        await applyLatency(deps, method, url.pathname);
        const fault = takeFault(deps, method, url.pathname);
        if (fault) {
          req.resume();
          send(res, undefined, {
            status: fault.status,
            body: fault.body ?? errorBody(fault.status, statusMessage(fault.status)),
            headers: fault.headers,
          });
        } else deps.handleGit(req, res);
        return;
      }
      await handleApi(deps, req, res, url);
    };
    run().catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      deps.violations.push({ kind: 'fake-error', method, path: url.pathname, message });
      if (!res.headersSent)
        send(res, undefined, { status: 500, body: errorBody(500, 'Internal Server Error') });
      else res.end();
    });
  };
}
