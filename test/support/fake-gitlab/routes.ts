/**
 * Routing of the fake's REST v4 API: each route is a method plus path segments (`:name` captures a
 * segment, URL-decoded, so `projects/group%2Fsub%2Fproject` names the project `group/sub/project`
 * while an unencoded `projects/group/sub/project` matches nothing, as on GitLab).
 */
import type { ShapeContext } from './shapes.js';
import type { FakeState, MergeRequestRecord, ProjectRecord, UserRecord } from './state.js';
import type { GitLabRole } from './types.js';

/** What a handler gets. */
export interface RouteContext {
  state: FakeState;
  shape: ShapeContext;
  url: URL;
  params: Record<string, string>;
  body: unknown;
  /** The token's user. */
  user: UserRecord;
  /** The token user's role on the projects. */
  role: GitLabRole;
}

/** What a handler answers. */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** A plain-text answer (e.g. a raw file) instead of JSON. */
  text?: string;
  headers?: Record<string, string>;
}

/** One route. */
export interface Route {
  method: string;
  /** Segments after `/api/v4/`, e.g. `['projects', ':id']`. */
  path: string[];
  handle(ctx: RouteContext): RouteResult | Promise<RouteResult>;
}

/** Matches `segments` (raw, still URL-encoded) against `routes`. */
export function matchRoute(
  routes: Route[],
  method: string,
  segments: string[],
): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method || route.path.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (const [i, part] of route.path.entries()) {
      const raw = segments[i] ?? '';
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        ok = false;
        break;
      }
      if (part.startsWith(':')) params[part.slice(1)] = value;
      else if (part !== value) {
        ok = false;
        break;
      }
    }
    if (ok) return { route, params };
  }
  return undefined;
}

/** GitLab's error JSON for a status without a handler-specific message. */
export function errorJson(status: number): Record<string, string> {
  const text: Record<number, string> = {
    400: '400 Bad request',
    401: '401 Unauthorized',
    403: '403 Forbidden',
    404: '404 Not Found',
    422: '422 Unprocessable Entity',
    429: 'Retry later',
    500: '500 Internal Server Error',
    502: '502 Bad Gateway',
    503: '503 Service Unavailable',
  };
  return { message: text[status] ?? `${status}` };
}

const ROLES: readonly GitLabRole[] = ['guest', 'reporter', 'developer', 'maintainer', 'owner'];

/** GitLab's 403 when the token user's role is below `least`, else undefined. */
export function forbiddenBelow(ctx: RouteContext, least: GitLabRole): RouteResult | undefined {
  return ROLES.indexOf(ctx.role) < ROLES.indexOf(least) ? { status: 403, body: errorJson(403) } : undefined;
}

/** The route's project, or GitLab's 404. */
export function projectOf(ctx: RouteContext): ProjectRecord | RouteResult {
  const project = ctx.state.findProject(ctx.params.id ?? '');
  return project ?? { status: 404, body: { message: '404 Project Not Found' } };
}

/** The route's merge request, or GitLab's 404. */
export function mergeRequestOf(ctx: RouteContext): MergeRequestRecord | RouteResult {
  const project = projectOf(ctx);
  if ('status' in project) return project;
  const iid = Number(ctx.params.iid);
  const mr = Number.isInteger(iid) ? ctx.state.findMergeRequest(project, iid) : undefined;
  return mr ?? { status: 404, body: { message: '404 Not found' } };
}

/** A required, non-blank string param `name` of the body; or GitLab's 400. */
export function requiredText(body: unknown, name: string): string | RouteResult {
  const value =
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (value === undefined || value === null) return { status: 400, body: { error: `${name} is missing` } };
  if (typeof value !== 'string') return { status: 400, body: { error: `${name} is invalid` } };
  return value;
}
