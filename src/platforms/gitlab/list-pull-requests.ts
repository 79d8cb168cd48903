/**
 * The project's recently updated merge requests (CONTRACT §23, `reviewbot stats`): one listing,
 * `GET /projects/:id/merge_requests?state=all&updated_after=&order_by=updated_at&sort=desc`
 * (GitLab `merge_requests.md`, "List project merge requests"), read page by page (100 a page, GitLab's
 * most) until a page comes back short or `max` merge requests were read.
 */
import { z } from 'zod';
import type { Platform, PullRequestSummary } from '../types.js';
import type { GitLabClient } from './client.js';
import type { GitLabCall } from './memory-api.js';

/** Merge requests one listing page holds (GitLab's `per_page` maximum). */
const PAGE_SIZE = 100;

/** One entry of the listing: state `opened`, `closed`, `locked` (a merge in progress) or `merged`. */
const ListedMergeRequest = z.object({ iid: z.number(), state: z.string(), updated_at: z.string() });

function stateOf(state: string): PullRequestSummary['state'] {
  if (state === 'merged') return 'merged';
  if (state === 'closed') return 'closed';
  return 'open';
}

/** `listPullRequests` of the GitLab platform. */
export function gitLabListPullRequests(
  client: GitLabClient,
  call: GitLabCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(project, { updatedSince, max }) {
      return call(`list the merge requests of ${project}`, async () => {
        const out: PullRequestSummary[] = [];
        const since = updatedSince.getTime();
        for (let page = 1; ; page++) {
          const { body } = await client.api.get(`projects/${encodeURIComponent(project)}/merge_requests`, {
            searchParams: {
              state: 'all',
              updated_after: updatedSince.toISOString(),
              order_by: 'updated_at',
              sort: 'desc',
              per_page: PAGE_SIZE,
              page,
            },
            signal: AbortSignal.timeout(client.timeoutMs),
          });
          const entries = ListedMergeRequest.array().parse(body);
          for (const mr of entries) {
            if (Date.parse(mr.updated_at) < since) return { pullRequests: out, truncated: false };
            if (out.length >= max) return { pullRequests: out, truncated: true };
            out.push({ number: mr.iid, state: stateOf(mr.state), updatedAt: mr.updated_at });
          }
          if (entries.length < PAGE_SIZE) return { pullRequests: out, truncated: false };
        }
      });
    },
  };
}
