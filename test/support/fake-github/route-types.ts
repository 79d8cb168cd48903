/**
 * What a route handler of the fake receives and returns, and GitHub's error bodies.
 */
import type { AppIdentity, ShapeContext } from './shapes-core.js';
import type { PullFacts } from './shapes-pull.js';
import type { FakeState, PullRecord } from './state.js';

/** Who made a request. */
export interface Identity {
  kind: 'token' | 'installation' | 'app';
  /** Acting login: the token's user, or `<slug>[bot]` for an installation (the slug for the App JWT). */
  login: string;
  /** Installation tokens minted with `permissions`: the permissions they were restricted to. */
  permissions?: Record<string, string>;
}

/** Services the handlers share. */
export interface FakeServices {
  state: FakeState;
  shape: ShapeContext;
  app: AppIdentity | undefined;
  appOwner: string;
  /** What the App's installation was granted (`FakeAppOptions.installationPermissions`). */
  installationPermissions?: Record<string, string>;
  /** SHAs, files and commit count of a pull request now; `commit` pins the head (a review's `commit_id`). */
  pullFacts(pull: PullRecord, commit?: string): Promise<PullFacts>;
  /** True when `sha` names a commit in the pull request's repository. */
  hasCommit(pull: PullRecord, sha: string): Promise<boolean>;
  /** The full unified diff of a pull request (`application/vnd.github.diff`). */
  pullDiff(pull: PullRecord): Promise<string>;
  /** Mints an installation token and returns it with its expiry (ISO). */
  mintToken(scope?: { repositories?: string[]; permissions?: Record<string, string> }): {
    token: string;
    expiresAt: string;
  };
}

/** One request, routed. */
export interface RouteContext extends FakeServices {
  identity: Identity;
  /** Decoded path parameters named as in the OpenAPI template. */
  params: Record<string, string>;
  /** Absolute URL of the request (for pagination links). */
  url: URL;
  body: unknown;
  accept: string;
}

/** A handler's answer: JSON `body` (or `text`), status and extra headers. */
export interface RouteResult {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A handler of one OpenAPI operation; `auth` = which credentials it takes. */
export interface Route {
  auth: 'user' | 'app';
  handle(ctx: RouteContext): Promise<RouteResult> | RouteResult;
}

const DOCS = 'https://docs.github.com/rest';

/** GitHub's error JSON: `{message, documentation_url, status}` plus `errors` when given. */
export function errorBody(status: number, message: string, errors?: unknown[]): Record<string, unknown> {
  const body: Record<string, unknown> = { message, documentation_url: DOCS, status: String(status) };
  if (errors) body.errors = errors;
  return body;
}

/** A `RouteResult` carrying GitHub's error JSON. */
export function errorResult(status: number, message: string, errors?: unknown[]): RouteResult {
  return { status, body: errorBody(status, message, errors) };
}

/** 404 `Not Found`, as GitHub answers for anything missing or not visible. */
export function notFound(): RouteResult {
  return errorResult(404, 'Not Found');
}

/** 422 `Unprocessable Entity` with GitHub's `errors` list. */
export function unprocessable(...errors: string[]): RouteResult {
  return errorResult(422, 'Unprocessable Entity', errors);
}

/** Default message of an HTTP status for injected faults. */
export function statusMessage(status: number): string {
  const known: Record<number, string> = {
    401: 'Bad credentials',
    403: 'Forbidden',
    404: 'Not Found',
    422: 'Unprocessable Entity',
    429: 'API rate limit exceeded',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
  };
  return known[status] ?? `HTTP ${status}`;
}
