/**
 * `GET /projects/:id/merge_requests` ("List project merge requests", GitLab `merge_requests.md`):
 * `state` (`opened`, `closed`, `locked`, `merged`, `all`; default all), `updated_after` /
 * `updated_before` (ISO 8601), `order_by` (`created_at`, `updated_at`, `title`, …) and `sort`
 * (`asc`, `desc`), paged like every GitLab list. Values GitLab's Grape params reject answer 400 with
 * GitLab's `{"error": "<param> does not have a valid value"}`. A merge request's `updated_at` is its
 * latest change the fake knows: creation, a push (a new diff version), a note, a state change.
 * Merge requests of other projects (forks' targets) are not listed.
 */
import { currentVersion } from './diff.js';
import { paginate } from './http-util.js';
import { projectOf, type Route, type RouteResult } from './routes.js';
import { mergeRequestJson, type ShapeContext } from './shapes.js';
import type { FakeState, MergeRequestRecord } from './state.js';

const STATES = new Set(['opened', 'closed', 'locked', 'merged', 'all']);
const ORDER_BY = new Set(['created_at', 'updated_at', 'merged_at', 'title', 'label_priority', 'priority']);
const SORT = new Set(['asc', 'desc']);
/** Keys of the single merge request answer that the list entries do not carry. */
const SINGLE_ONLY = ['diff_refs', 'changes_count', 'user', 'merge_error', 'subscribed'];

/** The latest change of `mr` the fake knows, ISO time. */
export function mergeRequestUpdatedAt(state: FakeState, mr: MergeRequestRecord): string {
  const times = [
    mr.createdAt,
    mr.updatedAt ?? mr.createdAt,
    ...mr.versions.map((v) => v.createdAt),
    ...state.discussions.filter((d) => d.mr === mr).flatMap((d) => d.notes.map((n) => n.createdAt)),
  ];
  return times.reduce((a, b) => (a > b ? a : b));
}

function invalid(param: string): RouteResult {
  return { status: 400, body: { error: `${param} does not have a valid value` } };
}

function listJson(ctx: ShapeContext, state: FakeState, mr: MergeRequestRecord): Record<string, unknown> {
  const json = mergeRequestJson(ctx, mr);
  for (const key of SINGLE_ONLY) delete json[key];
  return { ...json, updated_at: mergeRequestUpdatedAt(state, mr) };
}

/** Routes of this module. */
export const listRoutes: Route[] = [
  {
    method: 'GET',
    path: ['projects', ':id', 'merge_requests'],
    async handle(ctx) {
      const project = projectOf(ctx);
      if ('status' in project) return project;
      const q = ctx.url.searchParams;
      const state = q.get('state') ?? 'all';
      const orderBy = q.get('order_by') ?? 'created_at';
      const sort = q.get('sort') ?? 'desc';
      if (!STATES.has(state)) return invalid('state');
      if (!ORDER_BY.has(orderBy)) return invalid('order_by');
      if (!SORT.has(sort)) return invalid('sort');
      const bounds: Record<string, number> = {};
      for (const param of ['updated_after', 'updated_before', 'created_after', 'created_before']) {
        const value = q.get(param);
        if (value === null) continue;
        const time = Date.parse(value);
        if (Number.isNaN(time)) return { status: 400, body: { error: `${param} is invalid` } };
        bounds[param] = time;
      }
      const mrs = ctx.state.mergeRequests.filter(
        (mr) => mr.project === project && (state === 'all' || mr.state === state),
      );
      // A push to the source branch is a new diff version (and an update), as on GitLab.
      for (const mr of mrs) if (mr.state === 'opened') await currentVersion(ctx.state, mr);
      const rows = mrs
        .map((mr) => listJson(ctx.shape, ctx.state, mr))
        .filter((json) => {
          const updated = Date.parse(String(json.updated_at));
          const created = Date.parse(String(json.created_at));
          return (
            updated >= (bounds.updated_after ?? -Infinity) &&
            updated <= (bounds.updated_before ?? Infinity) &&
            created >= (bounds.created_after ?? -Infinity) &&
            created <= (bounds.created_before ?? Infinity)
          );
        });
      const key = orderBy === 'updated_at' ? 'updated_at' : orderBy === 'title' ? 'title' : 'created_at';
      rows.sort((a, b) => String(a[key]).localeCompare(String(b[key])) * (sort === 'asc' ? 1 : -1));
      const page = paginate(rows, ctx.url);
      return { status: 200, body: page.items, headers: page.headers };
    },
  },
];
