/**
 * The repository's recently updated pull requests (CONTRACT §23, `reviewbot stats`): one listing,
 * `GET /repositories/{workspace}/{repo_slug}/pullrequests` with every `state` (`OPEN`, `MERGED`,
 * `DECLINED`, `SUPERSEDED`: without `state` Bitbucket lists only open ones),
 * `q=updated_on >= <date>` (Bitbucket "Filtering and sorting API 2.0 responses") and
 * `sort=-updated_on`, read through its `next` links (50 a page, the most this resource serves) until
 * the listing ends or `max` pull requests were read. `DECLINED` and `SUPERSEDED` count as closed.
 */
import { z } from 'zod';
import type { Platform, PullRequestSummary } from '../types.js';
import { PlatformHttpError } from '../http/index.js';
import { isUnderApi, repoParams, type BitbucketClient } from './client.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';
import { pageOf } from './schemas.js';

/** Pull requests one listing page holds (Bitbucket's most for this resource). */
const PAGE_LEN = 50;
/** Pages followed at most (as `client.all`). */
const MAX_PAGES = 100;

const ListedPull = z.object({ id: z.number().int(), state: z.string(), updated_on: z.string() });
const Page = pageOf(ListedPull);

function stateOf(state: string): PullRequestSummary['state'] {
  if (state === 'OPEN') return 'open';
  if (state === 'MERGED') return 'merged';
  return 'closed';
}

/** `updated_on >= …` with the date as Bitbucket's filter language writes a datetime (ISO 8601). */
export function updatedSinceQuery(since: Date): string {
  return `updated_on >= ${since.toISOString().replace(/\.\d{3}Z$/, '+00:00')}`;
}

/** `listPullRequests` of the Bitbucket Cloud platform. */
export function bitbucketListPullRequests(
  client: BitbucketClient,
  call: BitbucketCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(repo, { updatedSince, max }) {
      return call(`list the pull requests of ${repo}`, async () => {
        const { workspace, repo_slug } = repoParams(repo);
        const query = new URLSearchParams();
        for (const state of ['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED']) query.append('state', state);
        query.set('q', updatedSinceQuery(updatedSince));
        query.set('sort', '-updated_on');
        query.set('pagelen', String(PAGE_LEN));
        let url: string | undefined =
          `${client.apiUrl}/repositories/${encodeURIComponent(workspace)}/${encodeURIComponent(repo_slug)}` +
          `/pullrequests?${query.toString()}`;
        const out: PullRequestSummary[] = [];
        const since = updatedSince.getTime();
        for (let n = 0; url && n < MAX_PAGES; n++) {
          if (!isUnderApi(url, client.apiUrl)) throw new PlatformHttpError(0, 'next link off the API');
          const page = Page.parse(await client.getUrl(url, 'json'));
          for (const pull of page.values) {
            if (Date.parse(pull.updated_on) < since) return { pullRequests: out, truncated: false };
            if (out.length >= max) return { pullRequests: out, truncated: true };
            out.push({ number: pull.id, state: stateOf(pull.state), updatedAt: pull.updated_on });
          }
          url = page.next;
        }
        return { pullRequests: out, truncated: url !== undefined };
      });
    },
  };
}
