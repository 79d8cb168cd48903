/**
 * The repository's recently updated pull requests (CONTRACT §23, `reviewbot stats`): one listing,
 * `GET /repos/{owner}/{repo}/pulls?state=all&sort=updated&direction=desc`, read page by page
 * (100 a page) until a pull request older than `updatedSince` or `max` pull requests.
 */
import type { Platform, PullRequestSummary } from '../types.js';
import type { GitHubClient } from './client.js';
import type { GitHubCall } from './memory-api.js';

/** Pull requests one listing page holds (GitHub's most). */
const PAGE_SIZE = 100;

/** `listPullRequests` of the GitHub platform. */
export function gitHubListPullRequests(
  client: GitHubClient,
  call: GitHubCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(repoFullName, { updatedSince, max }) {
      const [owner = '', repo = ''] = repoFullName.split('/');
      return call(`list the pull requests of ${repoFullName}`, async () => {
        const out: PullRequestSummary[] = [];
        const since = updatedSince.getTime();
        for (let page = 1; ; page++) {
          const { data } = await client.rest.pulls.list({
            owner,
            repo,
            state: 'all',
            sort: 'updated',
            direction: 'desc',
            per_page: PAGE_SIZE,
            page,
          });
          for (const pull of data) {
            if (Date.parse(pull.updated_at) < since) return { pullRequests: out, truncated: false };
            if (out.length >= max) return { pullRequests: out, truncated: true };
            out.push({
              number: pull.number,
              state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
              updatedAt: pull.updated_at,
            });
          }
          if (data.length < PAGE_SIZE) return { pullRequests: out, truncated: false };
        }
      });
    },
  };
}
