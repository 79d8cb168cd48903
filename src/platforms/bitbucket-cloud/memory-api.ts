/**
 * The Bitbucket Cloud side of review memory (CONTRACT §13, §14):
 * - file text at a commit: `GET /repositories/{ws}/{slug}/src/{commit}/{path}` (404 = no such file);
 * - comparison: `GET …/merge-base/{base}..{head}` decides ancestry, then `GET …/diffstat/{head}..{base}`
 *   and `GET …/diff/{head}..{base}` (Bitbucket's order: the changes first) with `topic=false`;
 * - the pull request's commits: `GET …/pullrequests/{id}/commits` (paginated);
 * - threads: top-level inline comments; resolution: `POST …/comments/{id}/resolve`.
 */
import type { CommitComparison, Platform } from '../types.js';
import { PlatformHttpError } from '../http/index.js';
import { repoParams, type BitbucketClient } from './client.js';
import { listBitbucketComments, toReviewThreads } from './comments.js';
import { toPullRequestFiles } from './diffs.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';
import { Commit, DiffStat } from './schemas.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

function notFound(error: unknown): boolean {
  return error instanceof PlatformHttpError && error.status === 404;
}

/** A repository path URL-encoded segment by segment (slashes kept). */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The memory methods of the Bitbucket Cloud platform. */
export function bitbucketMemoryMethods(client: BitbucketClient, call: BitbucketCall): MemoryMethods {
  const repoUrl = (repo: string) => {
    const { workspace, repo_slug } = repoParams(repo);
    return `${client.apiUrl}/repositories/${encodeURIComponent(workspace)}/${encodeURIComponent(repo_slug)}`;
  };
  return {
    async getFileContent(repo, path, ref) {
      return call(`read ${path} at ${ref.slice(0, 12)} in ${repo}`, async () => {
        try {
          return (await client.getUrl(
            `${repoUrl(repo)}/src/${encodeURIComponent(ref)}/${encodePath(path)}`,
            'text',
          )) as string;
        } catch (error) {
          if (notFound(error)) return null;
          throw error;
        }
      });
    },

    async compareCommits(repo, base, head): Promise<CommitComparison | null> {
      return call(`compare ${base.slice(0, 12)}..${head.slice(0, 12)} in ${repo}`, async () => {
        try {
          const mergeBase = Commit.parse(
            client.ok(
              await client.api.GET('/repositories/{workspace}/{repo_slug}/merge-base/{revspec}', {
                params: { path: { ...repoParams(repo), revspec: `${base}..${head}` } },
              }),
            ),
          ).hash;
          const status =
            base === head
              ? 'identical'
              : mergeBase === base
                ? 'ahead'
                : mergeBase === head
                  ? 'behind'
                  : 'diverged';
          const spec = `${head}..${base}`;
          const first = await client.getUrl(`${repoUrl(repo)}/diffstat/${spec}?topic=false`, 'json');
          const all = await client.all(DiffStat, first);
          const diff = (await client.getUrl(`${repoUrl(repo)}/diff/${spec}?topic=false`, 'text')) as string;
          return { status, files: toPullRequestFiles(all, diff) };
        } catch (error) {
          if (notFound(error)) return null;
          throw error;
        }
      });
    },

    async listCommitShas(repo, id) {
      const values = await call(`list the commits of ${repo}#${id}`, async () =>
        client.all(
          Commit,
          client.ok(
            await client.api.GET(
              '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/commits',
              {
                params: { path: { ...repoParams(repo), pull_request_id: id } },
              },
            ),
          ),
        ),
      );
      return values.map((c) => c.hash);
    },

    async listReviewThreads(repo, id) {
      return toReviewThreads(await listBitbucketComments(client, call, repo, id));
    },

    async resolveThread(repo, id, threadId) {
      await call(`resolve comment ${threadId} on ${repo}#${id}`, async () =>
        client.ok(
          await client.api.POST(
            '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments/{comment_id}/resolve',
            { params: { path: { ...repoParams(repo), pull_request_id: id, comment_id: Number(threadId) } } },
          ),
        ),
      );
    },
  };
}
