/**
 * A pull request's head on Bitbucket Cloud: its full SHA and the URL to clone it from.
 *
 * The head of a pull request from a fork lives in the fork. An access token is scoped to one
 * repository, project or workspace (Atlassian, "Access Tokens"), so reading the fork is often
 * refused (403, or 404 for a private fork). What the base repository's pull request endpoints
 * give is read there: the head's full SHA comes from `GET …/pullrequests/{id}/commits` (the
 * pull request's commits, full hashes) instead of the fork's `GET …/commit/{hash}`. The code itself
 * is served only by the fork: Bitbucket Cloud publishes no pull request refs in the base repository
 * (unlike Data Center's `refs/pull-requests/*`), so when the fork cannot be read the head cannot
 * be fetched, and that is reported as such instead of as a failing commit lookup.
 */
import { PlatformError } from '../../errors.js';
import { PlatformHttpError } from '../http/index.js';
import { repoParams, type BitbucketClient } from './client.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';
import { Commit, Repository } from './schemas.js';

/** The https clone URL of repository `repo` without user info (`links.clone`). */
export async function cloneUrlOf(client: BitbucketClient, repo: string): Promise<string> {
  const r = Repository.parse(
    client.ok(
      await client.api.GET('/repositories/{workspace}/{repo_slug}', { params: { path: repoParams(repo) } }),
    ),
  );
  const clone = r.links?.clone ?? [];
  const href = clone.find((l) => l.name === 'https')?.href ?? '';
  if (!href) return '';
  const url = new URL(href);
  url.username = '';
  url.password = '';
  return url.toString();
}

/**
 * The full SHA of the abbreviated `hash` (Bitbucket reports 12 characters) among the commits of
 * pull request `id` of the base repository `repo`, or undefined when none has that prefix.
 */
export async function prCommitSha(
  client: BitbucketClient,
  call: BitbucketCall,
  repo: string,
  id: number,
  hash: string,
): Promise<string | undefined> {
  if (/^[0-9a-f]{40}$/.test(hash)) return hash;
  if (!/^[0-9a-f]{7,39}$/.test(hash)) return undefined;
  const commits = await call(`list the commits of ${repo}#${id}`, async () =>
    client.all(
      Commit,
      client.ok(
        await client.api.GET('/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits', {
          params: { path: { ...repoParams(repo), pull_request_id: id } },
        }),
      ),
    ),
  );
  return commits.find((c) => c.hash.startsWith(hash))?.hash;
}

/**
 * The clone URL of the fork `fork` that pull request `repo`#`id` comes from.
 * @throws PlatformError (status 403 or 404) saying the fork cannot be read with this token, so
 *   its head cannot be fetched; `AuthError`/`PlatformError` for other failures.
 */
export async function forkCloneUrl(
  client: BitbucketClient,
  call: BitbucketCall,
  repo: string,
  id: number,
  fork: string,
): Promise<string> {
  try {
    return await cloneUrlOf(client, fork);
  } catch (error) {
    if (error instanceof PlatformHttpError && (error.status === 403 || error.status === 404)) {
      throw new PlatformError(
        `Bitbucket: pull request ${repo}#${id} comes from the fork ${fork}, which BITBUCKET_TOKEN cannot read ` +
          `(HTTP ${error.status}). Bitbucket Cloud serves a fork's commits only from the fork, so its head ` +
          `cannot be fetched: use a token that can read ${fork} (see docs/bitbucket.md, "Pull requests from forks").`,
        { status: error.status, cause: error },
      );
    }
    return call(`read the clone URL of ${fork}`, () => Promise.reject(error));
  }
}
