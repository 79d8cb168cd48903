/**
 * `GET …/projects/{projectKey}/repos/{repositorySlug}/pull-requests` of the fake Bitbucket Data
 * Center ("Get pull requests for repository"): `state` `OPEN` (default), `DECLINED`, `MERGED` or
 * `ALL`; `order` `NEWEST` (default: most recently updated first) or `OLDEST`; paged with
 * `start`/`limit`. Other values answer 400 as Data Center does. A pull request's `updatedDate` is its
 * latest change: creation, a state change, a comment, a thread resolution.
 */
import { flatten, user } from './comments.js';
import { error, type Answer, type PullState, type World } from './world.js';

const STATES = new Set(['OPEN', 'DECLINED', 'MERGED', 'ALL']);

/** The latest change of `pull` the fake knows, epoch ms. */
export function pullUpdatedDate(pull: PullState): number {
  return Math.max(
    pull.createdDate ?? 0,
    pull.updatedDate ?? 0,
    ...flatten(pull.comments).map((c) => Math.max(c.createdDate, c.threadResolvedDate ?? 0)),
  );
}

/** Answers the listing of `repo`'s pull requests, one page with `paged`. */
export function listPullRequests(
  world: World,
  repo: string,
  url: URL,
  paged: (world: World, url: URL, all: unknown[]) => Answer,
): Answer {
  const state = (url.searchParams.get('state') ?? 'OPEN').toUpperCase();
  if (!STATES.has(state)) return error(400, `${state} is not a valid pull request state.`);
  const order = (url.searchParams.get('order') ?? 'NEWEST').toUpperCase();
  if (order !== 'NEWEST' && order !== 'OLDEST') return error(400, `${order} is not a valid order.`);
  const [key = '', slug = ''] = repo.split('/');
  const rows = [...world.pulls.values()]
    .filter((p) => p.repo === repo && (state === 'ALL' || (p.state ?? 'OPEN') === state))
    .map((p) => ({ p, updated: pullUpdatedDate(p) }))
    .sort((a, b) => (order === 'NEWEST' ? b.updated - a.updated : a.updated - b.updated));
  return paged(
    world,
    url,
    rows.map(({ p, updated }) => {
      const pullState = p.state ?? 'OPEN';
      return {
        id: p.id,
        version: 0,
        title: p.title ?? '',
        state: pullState,
        open: pullState === 'OPEN',
        closed: pullState !== 'OPEN',
        createdDate: p.createdDate ?? 0,
        updatedDate: updated,
        author: { user: user(p.author ?? 'alice'), role: 'AUTHOR', approved: false, status: 'UNAPPROVED' },
        links: { self: [{ href: `${world.url}/projects/${key}/repos/${slug}/pull-requests/${p.id}` }] },
      };
    }),
  );
}
