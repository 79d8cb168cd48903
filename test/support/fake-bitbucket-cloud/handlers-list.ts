/**
 * `GET /repositories/{workspace}/{repo_slug}/pullrequests` of the fake Bitbucket Cloud, with
 * Bitbucket's rules: `state` may repeat (`OPEN`, `MERGED`, `DECLINED`, `SUPERSEDED`; none = open
 * only), `q` is the filter language (the fake understands `updated_on` compared with `>`, `>=`,
 * `<`, `<=` to an ISO 8601 datetime, and answers 400 to anything else, as Bitbucket does to a query
 * it cannot parse), `sort` `updated_on` / `-updated_on` / `created_on` / `-created_on` / `id` /
 * `-id`, `pagelen` at most 50 (Bitbucket answers 400 "Invalid pagelen" above). A pull request's
 * `updated_on` is its latest change: creation, a state change, a comment.
 */
import type { Answer, PullState, World } from './handlers.js';

const STATES = new Set(['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED']);
const FILTER = /^\s*updated_on\s*(>=|<=|>|<)\s*(\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)\s*$/;
const SORTS = new Set(['updated_on', '-updated_on', 'created_on', '-created_on', 'id', '-id']);

const bad = (message: string): Answer => ({ status: 400, body: { type: 'error', error: { message } } });

/** The latest change of `pull` the fake knows, ISO time. */
export function pullUpdatedOn(pull: PullState): string {
  const times = [pull.createdOn, pull.updatedOn, ...pull.comments.map((c) => c.createdOn)];
  return times.filter((t): t is string => t !== undefined).reduce((a, b) => (a > b ? a : b), '');
}

function test(op: string, a: number, b: number): boolean {
  if (op === '>=') return a >= b;
  if (op === '<=') return a <= b;
  if (op === '>') return a > b;
  return a < b;
}

/** Answers the listing of `repo`'s pull requests. */
export function listPullRequests(world: World, repo: string, url: URL): Answer {
  const states = url.searchParams.getAll('state');
  const unknown = states.find((s) => !STATES.has(s));
  if (unknown !== undefined) return bad(`Invalid state: ${unknown}`);
  const want = new Set(states.length > 0 ? states : ['OPEN']);
  const q = url.searchParams.get('q');
  const filter = q === null ? undefined : FILTER.exec(q);
  if (q !== null && (!filter || Number.isNaN(Date.parse(filter[2] ?? '')))) {
    return bad(`Invalid query: ${q}`);
  }
  const sort = url.searchParams.get('sort') ?? '-created_on';
  if (!SORTS.has(sort)) return bad(`Invalid sort field: ${sort}`);
  const pagelen = Number(url.searchParams.get('pagelen') ?? '10');
  if (!Number.isInteger(pagelen) || pagelen < 1 || pagelen > 50) return bad('Invalid pagelen');
  const rows = [...world.pulls.values()]
    .filter((p) => p.repo === repo && want.has(p.state ?? 'OPEN'))
    .map((p) => ({ p, updated: pullUpdatedOn(p) }))
    .filter(
      ({ updated }) => !filter || test(filter[1] ?? '', Date.parse(updated), Date.parse(filter[2] ?? '')),
    );
  const key = sort.replace(/^-/, '');
  const value = (r: (typeof rows)[number]) =>
    key === 'id'
      ? String(r.p.id).padStart(12, '0')
      : key === 'updated_on'
        ? r.updated
        : (r.p.createdOn ?? '');
  rows.sort((a, b) => value(a).localeCompare(value(b)) * (sort.startsWith('-') ? -1 : 1));
  const page = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
  const values = rows.slice((page - 1) * pagelen, page * pagelen).map(({ p, updated }) => ({
    type: 'pullrequest',
    id: p.id,
    title: p.title ?? '',
    state: p.state ?? 'OPEN',
    author: { type: 'user', nickname: p.author ?? 'alice', display_name: p.author ?? 'alice' },
    created_on: p.createdOn,
    updated_on: updated,
    source: { branch: { name: p.headBranch } },
    destination: { branch: { name: p.baseBranch } },
    links: { html: { href: `${world.url}/${repo}/pull-requests/${p.id}` } },
  }));
  const body: Record<string, unknown> = { pagelen, page, size: rows.length, values };
  if (page * pagelen < rows.length) {
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    body.next = next.toString();
  }
  return { status: 200, body };
}
