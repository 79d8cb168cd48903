/**
 * The repository's recently updated pull requests (CONTRACT §23, `reviewbot stats`): one listing,
 * `GET /repos/{owner}/{repo}/pulls?state=all&sort=recentupdate` (Gitea swagger `repoListPullRequests`;
 * `recentupdate` orders by `updated_unix` descending), read page by page (`limit` 50, Gitea's
 * default `MAX_RESPONSE_ITEMS`) until a pull request older than `updatedSince`, a short page or `max`
 * pull requests. Gitea's listing has no date filter: the first older pull request ends it. A merged
 * pull request is `closed` with `merged: true`.
 */
import { z } from 'zod';
import type { Platform, PullRequestSummary } from '../types.js';
import { repoPath, type GiteaClient } from './client.js';
import { PAGE_LIMIT } from './http.js';
import type { GiteaCall } from './submit-review.js';

/** One entry of the listing (the parts read). */
const ListedPull = z.object({
  number: z.number(),
  state: z.string(),
  merged: z.boolean().nullish(),
  updated_at: z.string(),
});

/** `listPullRequests` of the Gitea platform. */
export function giteaListPullRequests(
  client: GiteaClient,
  call: GiteaCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(repo, { updatedSince, max }) {
      return call(`list the pull requests of ${repo}`, async () => {
        const out: PullRequestSummary[] = [];
        const since = updatedSince.getTime();
        for (let page = 1; ; page++) {
          const { body } = await client.http.request('GET', `${repoPath(repo)}/pulls`, {
            query: { state: 'all', sort: 'recentupdate', page, limit: PAGE_LIMIT },
          });
          const pulls = ListedPull.array().parse(body);
          for (const pull of pulls) {
            if (Date.parse(pull.updated_at) < since) return { pullRequests: out, truncated: false };
            if (out.length >= max) return { pullRequests: out, truncated: true };
            out.push({
              number: pull.number,
              state: pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
              updatedAt: pull.updated_at,
            });
          }
          if (pulls.length < PAGE_LIMIT) return { pullRequests: out, truncated: false };
        }
      });
    },
  };
}
