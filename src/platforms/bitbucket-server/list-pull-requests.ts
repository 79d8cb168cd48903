/**
 * The repository's recently updated pull requests (CONTRACT §23, `reviewbot stats`): one listing,
 * `GET /rest/api/1.0/projects/{projectKey}/repos/{repositorySlug}/pull-requests?state=ALL&order=NEWEST`
 * (Atlassian REST "Get pull requests for repository"; `NEWEST` = most recently updated first), paged
 * with `start`/`limit` (`nextPageStart`) until a pull request older than `updatedSince` (the
 * listing has no date filter), the last page, or `max` pull requests. `DECLINED` counts as closed.
 */
import { z } from 'zod';
import type { Platform, PullRequestSummary } from '../types.js';
import { PlatformHttpError } from '../http/index.js';
import { repoParams, type BitbucketServerClient } from './client.js';
import type { PlatformCall as BitbucketServerCall } from '../http/index.js';

/** Pull requests asked for per page (Data Center serves at most its `page.max.pullrequests`). */
const PAGE_LIMIT = 100;
/** Pages followed at most. */
const MAX_PAGES = 200;

const Page = z.object({
  values: z.array(z.object({ id: z.number().int(), state: z.string(), updatedDate: z.number() })).default([]),
  isLastPage: z.boolean().default(true),
  nextPageStart: z.number().int().nonnegative().nullish(),
});

function stateOf(state: string): PullRequestSummary['state'] {
  if (state === 'MERGED') return 'merged';
  if (state === 'DECLINED') return 'closed';
  return 'open';
}

/** `listPullRequests` of the Data Center platform. */
export function serverListPullRequests(
  client: BitbucketServerClient,
  call: BitbucketServerCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(repo, { updatedSince, max }) {
      return call(`list the pull requests of ${repo}`, async () => {
        const out: PullRequestSummary[] = [];
        const since = updatedSince.getTime();
        let start = 0;
        for (let n = 0; n < MAX_PAGES; n++) {
          const page = Page.parse(
            client.ok(
              await client.api.GET('/api/latest/projects/{projectKey}/repos/{repositorySlug}/pull-requests', {
                params: {
                  path: repoParams(repo),
                  query: { state: 'ALL', order: 'NEWEST', start, limit: PAGE_LIMIT },
                },
              }),
            ),
          );
          for (const pull of page.values) {
            if (pull.updatedDate < since) return { pullRequests: out, truncated: false };
            if (out.length >= max) return { pullRequests: out, truncated: true };
            out.push({
              number: pull.id,
              state: stateOf(pull.state),
              updatedAt: new Date(pull.updatedDate).toISOString(),
            });
          }
          if (page.isLastPage || page.nextPageStart == null) return { pullRequests: out, truncated: false };
          if (page.nextPageStart <= start) throw new PlatformHttpError(0, 'paging went back');
          start = page.nextPageStart;
        }
        return { pullRequests: out, truncated: true };
      });
    },
  };
}
