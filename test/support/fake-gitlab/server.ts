/**
 * The fake's request pipeline. API requests (`/api/v4/...`): record → injected fault →
 * authenticate (`PRIVATE-TOKEN`, or `Authorization: Bearer`) → parse the body → route. Git requests
 * (`/<path>.git/...`): injected fault → git smart HTTP (Basic auth, the token as password).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseBody } from './http-util.js';
import { errorJson, matchRoute, type Route, type RouteResult } from './routes.js';
import type { ShapeContext } from './shapes.js';
import type { FakeState, UserRecord } from './state.js';
import type { GitLabRole, RecordedRequest, Violation } from './types.js';

/** A one-shot fault of `failNext`. */
export interface Fault {
  method: string;
  path: RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the pipeline needs. */
export interface PipelineDeps {
  state: FakeState;
  shape: ShapeContext;
  routes: Route[];
  token: string;
  user: UserRecord;
  role: GitLabRole;
  handleGit(req: IncomingMessage, res: ServerResponse): void;
  requests: RecordedRequest[];
  violations: Violation[];
  faults: Fault[];
}

const API_PREFIX = '/api/v4/';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'private-token' || name === 'authorization' || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function send(res: ServerResponse, record: RecordedRequest | undefined, result: RouteResult): void {
  const headers: Record<string, string> = {
    'x-request-id': randomUUID().replace(/-/g, '').slice(0, 26).toUpperCase(),
    'cache-control': 'max-age=0, private, must-revalidate',
    ...result.headers,
  };
  let payload = '';
  if (result.text !== undefined) {
    payload = result.text;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (result.body !== undefined && result.status !== 204) {
    payload = JSON.stringify(result.body);
    headers['content-type'] ??= 'application/json';
  }
  if (record) record.status = result.status;
  res.writeHead(result.status, headers);
  res.end(payload);
}

function takeFault(deps: PipelineDeps, method: string, path: string): Fault | undefined {
  const i = deps.faults.findIndex(
    (f) => (f.method === '*' || f.method.toUpperCase() === method) && f.path.test(path),
  );
  return i < 0 ? undefined : deps.faults.splice(i, 1)[0];
}

function authorized(deps: PipelineDeps, req: IncomingMessage): boolean {
  const privateToken = req.headers['private-token'];
  if (typeof privateToken === 'string') return privateToken === deps.token;
  const auth = req.headers.authorization ?? '';
  return auth.startsWith('Bearer ') && auth.slice(7) === deps.token;
}

async function handleApi(
  deps: PipelineDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  const record: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: recordedHeaders(req),
    body: undefined,
    authorized: authorized(deps, req),
    status: 0,
  };
  deps.requests.push(record);
  let body: unknown;
  try {
    body = await parseBody(raw, req.headers['content-type']);
    record.body = body;
  } catch {
    record.body = raw.toString('utf8');
    deps.violations.push({ method, path: url.pathname, message: 'request body could not be parsed' });
    send(res, record, { status: 400, body: { error: 'The request body could not be parsed' } });
    return;
  }
  const fault = takeFault(deps, method, url.pathname);
  if (fault) {
    send(res, record, {
      status: fault.status,
      body: fault.body ?? errorJson(fault.status),
      headers: fault.headers,
    });
    return;
  }
  if (!record.authorized) {
    send(res, record, { status: 401, body: { message: '401 Unauthorized' } });
    return;
  }
  const segments = url.pathname.slice(API_PREFIX.length).split('/');
  const matched = matchRoute(deps.routes, method, segments);
  if (!matched) {
    deps.violations.push({ method, path: url.pathname, message: 'no such route in the fake GitLab' });
    send(res, record, { status: 404, body: { error: '404 Not Found' } });
    return;
  }
  const ctx = {
    state: deps.state,
    shape: deps.shape,
    url,
    params: matched.params,
    body,
    user: deps.user,
    role: deps.role,
  };
  send(res, record, await matched.route.handle(ctx));
}

/** A `node:http` request listener running the pipeline; internal errors answer 500 and are recorded. */
export function createRequestListener(
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', deps.shape.baseUrl);
    const method = (req.method ?? 'GET').toUpperCase();
    const run = async () => {
      if (url.pathname.startsWith(API_PREFIX)) {
        await handleApi(deps, req, res, url);
        return;
      }
      if (/\.git(\/|$)/.test(url.pathname)) {
        const fault = takeFault(deps, method, url.pathname);
        if (fault) {
          req.resume();
          send(res, undefined, { status: fault.status, body: fault.body ?? errorJson(fault.status) });
        } else deps.handleGit(req, res);
        return;
      }
      req.resume();
      deps.violations.push({ method, path: url.pathname, message: 'not an API or git path' });
      send(res, undefined, { status: 404, body: errorJson(404) });
    };
    run().catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      deps.violations.push({ method, path: url.pathname, message: `fake error: ${message}` });
      if (!res.headersSent) send(res, undefined, { status: 500, body: errorJson(500) });
      else res.end();
    });
  };
}
