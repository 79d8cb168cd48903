/**
 * The fake's HTTP API: authentication (bearer token, else 401), RBAC as the Role of
 * `deploy/base/role.yaml` grants it (`batch`/`jobs` verbs in one namespace, else 403 — including
 * the `jobs/status` subresource and every other resource), and the `batch/v1` Job calls: create
 * (with `generateName`, `dryRun`), get, list (`labelSelector`, `fieldSelector=metadata.name=…`),
 * delete (`propagationPolicy`). Errors are `Status` objects like the real server's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Job } from '@kubernetes/client-node';
import { parseLabelSelector } from './label-selector.js';
import type { FakeFault, FakeRejection } from './types.js';
import type { StatusCause } from './validate-job.js';

/** A route's answer. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** What the HTTP layer needs from the fake. */
export interface ApiDeps {
  token: string;
  namespace: string;
  verbs: ReadonlySet<string>;
  faults: FakeFault[];
  rejections: FakeRejection[];
  requests: { method: string; path: string; status: number }[];
  create(namespace: string, body: unknown, dryRun: boolean): ApiAnswer;
  get(name: string): V1Job | undefined;
  list(): V1Job[];
  remove(name: string, propagationPolicy: string | undefined): ApiAnswer;
}

const SERVICE_ACCOUNT = 'reviewbot-server';

/** A `Status` failure object with `code` = `status`. */
export function statusBody(
  status: number,
  reason: string,
  message: string,
  details?: { name?: string; causes?: StatusCause[] },
): ApiAnswer {
  const body: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code: status,
  };
  if (details) body.details = { ...details, group: 'batch', kind: 'jobs' };
  return { status, body };
}

function forbidden(namespace: string, verb: string, resource: string, user: string): ApiAnswer {
  const where = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
  const [res, sub] = resource.split('/');
  const what = sub ? `resource "${res}/${sub}"` : `resource "${res}"`;
  return statusBody(
    403,
    'Forbidden',
    `${resource}${resource.startsWith('jobs') ? '.batch' : ''} is forbidden: User "${user}" cannot ${verb} ${what} in API group "batch"${where}`,
  );
}

function stripListItem(job: V1Job): Omit<V1Job, 'apiVersion' | 'kind'> {
  const { apiVersion: _a, kind: _k, ...rest } = job;
  return rest;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const JOBS_PATH = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?(?:\/([^/]+))?$/;

function verbOf(method: string, hasName: boolean, watch: boolean): string {
  if (method === 'POST') return 'create';
  if (method === 'DELETE') return hasName ? 'delete' : 'deletecollection';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (watch) return 'watch';
  return hasName ? 'get' : 'list';
}

async function route(deps: ApiDeps, req: IncomingMessage, url: URL): Promise<ApiAnswer> {
  const method = req.method ?? 'GET';
  const user = `system:serviceaccount:${deps.namespace}:${SERVICE_ACCOUNT}`;
  const auth = req.headers.authorization ?? '';
  if (auth !== `Bearer ${deps.token}`) return statusBody(401, 'Unauthorized', 'Unauthorized');
  const match = JOBS_PATH.exec(url.pathname);
  if (!match) {
    const resource = url.pathname.split('/').filter(Boolean).slice(-1)[0] ?? '';
    return forbidden('', method === 'GET' ? 'get' : method.toLowerCase(), resource || 'path', user);
  }
  const [, namespace = '', name, subresource] = match;
  const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
  const verb = verbOf(method, name !== undefined, watch);
  const resource = subresource ? `jobs/${subresource}` : 'jobs';
  if (namespace !== deps.namespace || subresource || !deps.verbs.has(verb)) {
    return forbidden(namespace, verb, resource, user);
  }
  const faultIndex = deps.faults.findIndex((f) => f.verb === verb || f.verb === '*');
  if (faultIndex >= 0) {
    const [fault] = deps.faults.splice(faultIndex, 1);
    if (fault) return statusBody(fault.status, 'InjectedFault', fault.message ?? `injected ${fault.status}`);
  }
  if (verb === 'watch') return statusBody(405, 'MethodNotAllowed', 'the fake does not implement watch');
  if (verb === 'create') {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return statusBody(
        400,
        'BadRequest',
        'the body of the request was in an unknown format - accepted media types include: application/json',
      );
    }
    return deps.create(namespace, body, url.searchParams.get('dryRun') === 'All');
  }
  if (verb === 'get' && name) {
    const job = deps.get(name);
    return job
      ? { status: 200, body: job }
      : statusBody(404, 'NotFound', `jobs.batch "${name}" not found`, { name });
  }
  if (verb === 'list') {
    let selector;
    try {
      selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? '');
    } catch (error) {
      return statusBody(400, 'BadRequest', `unable to parse requirement: ${(error as Error).message}`);
    }
    const field = url.searchParams.get('fieldSelector') ?? '';
    const nameMatch = /^metadata\.name(?:==?)(.*)$/.exec(field);
    if (field && !nameMatch) return statusBody(400, 'BadRequest', `field label not supported: ${field}`);
    const items = deps
      .list()
      .filter((job) => selector.matches(job.metadata?.labels))
      .filter((job) => !nameMatch || job.metadata?.name === nameMatch[1]);
    return {
      status: 200,
      body: {
        apiVersion: 'batch/v1',
        kind: 'JobList',
        metadata: { resourceVersion: '1' },
        items: items.map(stripListItem),
      },
    };
  }
  if (verb === 'delete' && name) {
    const raw = await readBody(req);
    let policy = url.searchParams.get('propagationPolicy') ?? undefined;
    if (!policy && raw.trim()) {
      try {
        policy = (JSON.parse(raw) as { propagationPolicy?: string }).propagationPolicy;
      } catch {
        return statusBody(400, 'BadRequest', 'the body of the request was in an unknown format');
      }
    }
    return deps.remove(name, policy);
  }
  return statusBody(405, 'MethodNotAllowed', `the fake does not implement ${verb} on jobs`);
}

/** The request listener: routes, records the request, and writes JSON. */
export function createApiListener(deps: ApiDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://fake');
    void route(deps, req, url)
      .catch((error: unknown) => statusBody(500, 'InternalError', `fake Kubernetes: ${String(error)}`))
      .then((answer) => {
        const pathWithQuery = `${url.pathname}${url.search}`;
        deps.requests.push({ method: req.method ?? 'GET', path: pathWithQuery, status: answer.status });
        if (answer.status >= 400) {
          const message = String((answer.body as { message?: unknown }).message ?? '');
          deps.rejections.push({
            method: req.method ?? 'GET',
            path: pathWithQuery,
            status: answer.status,
            message,
          });
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
  };
}
