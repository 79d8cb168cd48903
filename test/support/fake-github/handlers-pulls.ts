/**
 * Routes for repositories and pull requests: `repos/get`, `pulls/list`, `pulls/get` (JSON, or the
 * diff with `Accept: application/vnd.github.diff`) and `pulls/list-files` (at most 3000 files, as
 * GitHub).
 */
import { paginate } from './pagination.js';
import { notFound, type Route, type RouteContext } from './route-types.js';
import { repoJson } from './shapes-core.js';
import { diffEntryJson, pullJson } from './shapes-pull.js';
import { pullKey, repoKey, type PullRecord, type RepoRecord } from './state.js';

/** GitHub's cap on the files listed for one pull request. */
export const MAX_PULL_FILES = 3000;

/** The repository named by the `owner`/`repo` path parameters, if known. */
export function findRepo(ctx: RouteContext): RepoRecord | undefined {
  return ctx.state.repos.get(repoKey(ctx.params.owner ?? '', ctx.params.repo ?? ''));
}

/** The pull request named by `owner`/`repo` and `pull_number` (or `issue_number`), if known. */
export function findPull(ctx: RouteContext): PullRecord | undefined {
  const number = Number(ctx.params.pull_number ?? ctx.params.issue_number);
  return ctx.state.pulls.get(pullKey(ctx.params.owner ?? '', ctx.params.repo ?? '', number));
}

const getRepo: Route = {
  auth: 'user',
  handle(ctx) {
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    return { status: 200, body: { ...repoJson(ctx.shape, repo), network_count: 0, subscribers_count: 0 } };
  },
};

const listPulls: Route = {
  auth: 'user',
  async handle(ctx) {
    const repo = findRepo(ctx);
    if (!repo) return notFound();
    const wanted = ctx.url.searchParams.get('state') ?? 'open';
    const pulls = [...ctx.state.pulls.values()]
      .filter((p) => p.repo === repo && (wanted === 'all' || p.state === wanted))
      .sort((a, b) => b.number - a.number);
    // `sort=updated` (GitHub's default order is `created`; `direction` defaults to `desc`).
    if (ctx.url.searchParams.get('sort') === 'updated') {
      pulls.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
      if (ctx.url.searchParams.get('direction') === 'asc') pulls.reverse();
    }
    const page = paginate(pulls, ctx.url);
    const body = [];
    for (const pull of page.items) body.push(pullJson(ctx.shape, pull, await ctx.pullFacts(pull)));
    return { status: 200, body, headers: page.headers };
  },
};

const getPull: Route = {
  auth: 'user',
  async handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    if (/application\/vnd\.github(\.v3)?\.diff/.test(ctx.accept)) {
      return {
        status: 200,
        text: await ctx.pullDiff(pull),
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      };
    }
    return { status: 200, body: pullJson(ctx.shape, pull, await ctx.pullFacts(pull)) };
  },
};

const listFiles: Route = {
  auth: 'user',
  async handle(ctx) {
    const pull = findPull(ctx);
    if (!pull) return notFound();
    const facts = await ctx.pullFacts(pull);
    const page = paginate(facts.files, ctx.url, MAX_PULL_FILES);
    const body = page.items.map((f) => diffEntryJson(ctx.shape, pull, facts.headSha, f));
    return { status: 200, body, headers: page.headers };
  },
};

/** Routes of this module by OpenAPI operation id. */
export const pullRoutes: Record<string, Route> = {
  'repos/get': getRepo,
  'pulls/list': listPulls,
  'pulls/get': getPull,
  'pulls/list-files': listFiles,
};
