/**
 * The Azure DevOps side of review memory (CONTRACT §13, §14):
 * - file text at a commit: items API with `versionDescriptor` {version: the commit, versionType
 *   commit} (404 = no such file);
 * - comparison: `GET …/commits/{head}/mergebases?otherCommitId={base}` decides ancestry, then
 *   `GET …/diffs/commits` (base → head, `diffCommonCommit=true`) lists the changed files, whose
 *   hunks are made from their text at both commits (`diffs.ts`);
 * - the pull request's commits: `GET …/pullRequests/{id}/commits`;
 * - threads: threads anchored in a file; resolution: `PATCH …/threads/{id}` with status `fixed`.
 */
import type { CommitComparison, Platform } from '../types.js';
import { PlatformHttpError } from '../http/index.js';
import type { AzureClient } from './client.js';
import { fileAt, MAX_DIFFED_FILES, toListedChanges, withHunks } from './diffs.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { listAzureThreads, splitRepo, THREAD_STATUS, toReviewThreads } from './threads.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

/** `GitVersionType.Commit` (GitInterfaces.ts). */
const COMMIT = 2;

function notFound(error: unknown): boolean {
  return error instanceof PlatformHttpError && (error.status === 404 || error.status === 400);
}

/** The memory methods of the Azure DevOps platform. */
export function azureMemoryMethods(client: AzureClient, call: AzureCall): MemoryMethods {
  return {
    async getFileContent(repo, path, ref) {
      const { project, repo: name } = splitRepo(repo);
      return call(`read ${path} at ${ref.slice(0, 12)} in ${repo}`, () =>
        fileAt(client, project, name, path, ref),
      );
    },

    async compareCommits(repo, base, head): Promise<CommitComparison | null> {
      const { project, repo: name } = splitRepo(repo);
      return call(`compare ${base.slice(0, 12)}..${head.slice(0, 12)} in ${repo}`, async () => {
        try {
          const bases = await client.send((git) => git.getMergeBases(name, head, base, project));
          const mergeBase = bases?.[0]?.commitId ?? '';
          const status =
            base === head
              ? 'identical'
              : mergeBase === base
                ? 'ahead'
                : mergeBase === head
                  ? 'behind'
                  : 'diverged';
          const diffs = await client.send((git) =>
            git.getCommitDiffs(
              name,
              project,
              true,
              MAX_DIFFED_FILES + 1,
              0,
              // The library reads `version`/`versionType` of each descriptor (GitApi.getCommitDiffs).
              { version: base, versionType: COMMIT },
              { version: head, versionType: COMMIT },
            ),
          );
          const listed = toListedChanges(diffs.changes ?? []);
          const truncated = diffs.allChangesIncluded === false || listed.length > MAX_DIFFED_FILES;
          const from = mergeBase || base;
          const files = await withHunks(client, project, name, listed.slice(0, MAX_DIFFED_FILES), from, head);
          return { status, files, ...(truncated ? { truncated } : {}) };
        } catch (error) {
          if (notFound(error)) return null;
          throw error;
        }
      });
    },

    async listCommitShas(repo, id) {
      const { project, repo: name } = splitRepo(repo);
      const commits = await call(`list the commits of ${repo}#${id}`, () =>
        client.send((git) => git.getPullRequestCommits(name, id, project)),
      );
      const list = [...(commits ?? [])];
      // The API pages its answer (`PagedList`, continuation token): a full page may be partial.
      if ((commits as { continuationToken?: string } | undefined)?.continuationToken) return null;
      return list.map((c) => c.commitId ?? '').filter((sha) => sha !== '');
    },

    async listReviewThreads(repo, id) {
      return toReviewThreads(await listAzureThreads(client, call, repo, id));
    },

    async resolveThread(repo, id, threadId) {
      const { project, repo: name } = splitRepo(repo);
      await call(`mark thread ${threadId} on ${repo}#${id} fixed`, () =>
        client.send((git) =>
          git.updateThread({ status: THREAD_STATUS.fixed }, name, id, Number(threadId), project),
        ),
      );
    },
  };
}
