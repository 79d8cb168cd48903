/**
 * `repoListPullRequests` (`GET /repos/{owner}/{repo}/pulls`) of the fake Gitea: `state` (`open`,
 * `closed` — merged ones included, as Gitea stores them closed — or `all`; default `open`) and
 * `sort` (`recentupdate` = `updated_unix` descending, `leastupdate`, `oldest`; default newest
 * created first), paged like every list (the swagger check rejects other values first). A pull
 * request's `updated_at` is its latest change the fake knows: creation, a state change, a
 * conversation comment, a review or a code comment.
 */
import { pullFiles, pullShas } from './git.js';
import { notFound, page, repoOf, type Handler } from './handler-kit.js';
import { pullJson } from './shapes.js';
import type { FakeState, PullRecord, RepoRecord } from './state.js';

/** The latest change of `pull` the fake knows, ISO time. */
export function pullUpdatedAt(state: FakeState, pull: PullRecord): string {
  const mine = (x: { repo: string; index?: number }) =>
    x.repo === pull.repo.fullName && x.index === pull.index;
  const times = [
    pull.createdAt,
    pull.updatedAt ?? pull.createdAt,
    ...state.comments.filter(mine).map((c) => c.createdAt),
    ...state.reviews.filter(mine).map((r) => r.submittedAt),
    ...state.codeComments.filter(mine).map((c) => c.createdAt),
  ];
  return times.reduce((a, b) => (a > b ? a : b));
}

type Counts = { additions: number; deletions: number; changedFiles: number };
/** Diff counts per repository and `base..head`: a page lists up to 50 pull requests. */
const COUNTS = new WeakMap<RepoRecord, Map<string, Counts>>();

async function countsOf(p: PullRecord, shas: { head: string; base: string }): Promise<Counts> {
  const cache = COUNTS.get(p.repo) ?? new Map<string, Counts>();
  COUNTS.set(p.repo, cache);
  const key = `${shas.base}..${shas.head}`;
  const known = cache.get(key);
  if (known) return known;
  const files = await pullFiles(p);
  const counts = {
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changedFiles: files.length,
  };
  cache.set(key, counts);
  return counts;
}

/** Handlers of this module. */
export const listHandlers: Record<string, Handler> = {
  async repoListPullRequests(ctx) {
    const repo = repoOf(ctx);
    if (!repo) return notFound(ctx);
    const want = ctx.url.searchParams.get('state') ?? 'open';
    const sort = ctx.url.searchParams.get('sort') ?? '';
    const pulls = ctx.state.pulls
      .filter((p) => p.repo === repo)
      .filter((p) => want === 'all' || (want === 'open' ? p.state === 'open' : p.state !== 'open'))
      .map((p) => ({ p, updated: pullUpdatedAt(ctx.state, p) }));
    if (sort === 'recentupdate') pulls.sort((a, b) => b.updated.localeCompare(a.updated));
    else if (sort === 'leastupdate') pulls.sort((a, b) => a.updated.localeCompare(b.updated));
    else if (sort === 'oldest') pulls.sort((a, b) => a.p.createdAt.localeCompare(b.p.createdAt));
    else pulls.sort((a, b) => b.p.createdAt.localeCompare(a.p.createdAt));
    const answer = page(ctx, pulls);
    const body = await Promise.all(
      answer.body.map(async ({ p, updated }) => {
        const shas = await pullShas(p);
        return { ...pullJson(ctx.shape, p, shas, await countsOf(p, shas)), updated_at: updated };
      }),
    );
    return { ...answer, body };
  },
};
