/**
 * The Bitbucket Data Center side of review memory (CONTRACT §13, §14):
 * - file text at a commit: `GET …/raw/{path}?at={commit}` (404 = no such file);
 * - comparison: `GET …/compare/commits?from=&to=` (commits reachable from `from` and not from
 *   `to`) decides ancestry; then `GET …/compare/changes` and `GET …/compare/diff` with
 *   `from` = the head and `to` = the base (Atlassian REST "Compare commits": the changes in `from`
 *   not in `to`, from their merge base);
 * - the pull request's commits: `GET …/pull-requests/{id}/commits` (paged);
 * - threads: root inline comments; resolution: `PUT …/comments/{id}` with the comment's current
 *   `version` and `threadResolved: true` (`RestComment.threadResolved`; a refusal leaves the thread
 *   open and is logged by the caller).
 */
import type { CommitComparison, Platform } from '../types.js';
import { PlatformHttpError } from '../http/index.js';
import { encodePath, repoParams, repoPath, type BitbucketServerClient } from './client.js';
import { listServerComments, toReviewThreads } from './comments.js';
import { patchesOf, toPullRequestFiles } from './diffs.js';
import type { PlatformCall as BitbucketServerCall } from '../http/index.js';
import { Change, Comment, Commit, Diff } from './schemas.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

function notFound(error: unknown): boolean {
  return error instanceof PlatformHttpError && error.status === 404;
}

const R = '/api/latest/projects/{projectKey}/repos/{repositorySlug}';

/** The memory methods of the Data Center platform. */
export function serverMemoryMethods(client: BitbucketServerClient, call: BitbucketServerCall): MemoryMethods {
  /** True when `from` has no commit that `to` lacks (so `from` is an ancestor of `to`, or equal). */
  async function contained(repo: string, from: string, to: string): Promise<boolean> {
    const page = client.ok(
      await client.api.GET(`${R}/compare/commits`, {
        params: { path: repoParams(repo), query: { from, to, limit: 1 } },
      }),
    ) as { values?: unknown[] };
    return (page.values ?? []).length === 0;
  }

  return {
    async getFileContent(repo, path, ref) {
      return call(`read ${path} at ${ref.slice(0, 12)} in ${repo}`, async () => {
        try {
          return await client.getText(
            `${repoPath(repo)}/raw/${encodePath(path)}?at=${encodeURIComponent(ref)}`,
          );
        } catch (error) {
          if (notFound(error)) return null;
          throw error;
        }
      });
    },

    async compareCommits(repo, base, head): Promise<CommitComparison | null> {
      return call(`compare ${base.slice(0, 12)}..${head.slice(0, 12)} in ${repo}`, async () => {
        try {
          const baseInHead = await contained(repo, base, head);
          const headInBase = await contained(repo, head, base);
          const status =
            base === head ? 'identical' : baseInHead ? 'ahead' : headInBase ? 'behind' : 'diverged';
          const query = { from: head, to: base };
          const changes = await client.all(Change, async (start, limit) =>
            client.ok(
              await client.api.GET(`${R}/compare/changes`, {
                params: { path: repoParams(repo), query: { ...query, start, limit } },
              }),
            ),
          );
          const diff = Diff.parse(
            client.ok(
              await client.api.GET(`${R}/compare/diff{path}`, {
                params: { path: { ...repoParams(repo), path: '' }, query },
              }),
            ),
          );
          return {
            status,
            files: toPullRequestFiles(changes, patchesOf(diff)),
            ...(diff.truncated || diff.diffs.some((d) => d.truncated) ? { truncated: true } : {}),
          };
        } catch (error) {
          if (notFound(error)) return null;
          throw error;
        }
      });
    },

    async listCommitShas(repo, id) {
      const values = await call(`list the commits of ${repo}#${id}`, async () =>
        client.all(Commit, async (start, limit) =>
          client.ok(
            await client.api.GET(`${R}/pull-requests/{pullRequestId}/commits`, {
              params: { path: { ...repoParams(repo), pullRequestId: String(id) }, query: { start, limit } },
            }),
          ),
        ),
      );
      return values.map((c) => c.id);
    },

    async listReviewThreads(repo, id) {
      return toReviewThreads(await listServerComments(client, call, repo, id));
    },

    async resolveThread(repo, id, threadId) {
      await call(`resolve comment ${threadId} on ${repo}#${id}`, async () => {
        const path = { ...repoParams(repo), pullRequestId: String(id), commentId: threadId };
        const current = Comment.parse(
          client.ok(
            await client.api.GET(`${R}/pull-requests/{pullRequestId}/comments/{commentId}`, {
              params: { path },
            }),
          ),
        );
        client.ok(
          await client.api.PUT(`${R}/pull-requests/{pullRequestId}/comments/{commentId}`, {
            params: { path },
            body: { version: current.version, threadResolved: true },
          }),
        );
      });
    },
  };
}
