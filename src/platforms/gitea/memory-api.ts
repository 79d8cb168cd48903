/**
 * The Gitea side of review memory (CONTRACT §13, §14), on Gitea's API v1:
 * - file text at a ref: `GET /repos/{owner}/{repo}/raw/{filepath}?ref=` (404 = no such file);
 * - comparison: `GET /repos/{owner}/{repo}/compare/{base}...{head}` lists the commits from the merge
 *   base to head with the files each touched; Gitea's API returns no patch between two commits, so
 *   each file's hunks are made here from its text at both commits (`diff`, 3 lines of context, as
 *   `git diff`);
 * - the pull request's commits: `GET /repos/{owner}/{repo}/pulls/{index}/commits`, every page (Gitea
 *   lists them all, unlike GitHub's 250);
 * - threads: the conversations of every submitted review (`threads.ts`);
 * - resolution: `POST /repos/{owner}/{repo}/pulls/{index}/comments/{id}/resolve` (Gitea 1.26+). An
 *   older server (Forgejo included) answers 404, and 403 when the bot's account may not mark
 *   conversations: the bot then replies in the conversation that the finding was addressed, with a
 *   marker that makes the thread count as resolved from then on.
 */
import { formatPatch, structuredPatch } from 'diff';
import { PlatformError } from '../../errors.js';
import type { CommitComparison, CompareStatus, MarkedThread, Platform, PullRequestFile } from '../types.js';
import type { GiteaClient } from './client.js';
import { PlatformHttpError } from '../http/index.js';
import { replyInConversation } from './reply.js';
import type { GiteaCall } from './submit-review.js';
import { ADDRESSED_MARKER, listCodeComments, threadsOf } from './threads.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

/** Files compared at most (each costs two reads); more = `truncated`, so a full review. */
export const MAX_COMPARED_FILES = 300;

/** The reply posted when a server cannot resolve a conversation through its API. */
export const ADDRESSED_REPLY = `Addressed by the latest changes. The bot could not resolve this conversation on this server, so this reply marks it addressed.\n\n${ADDRESSED_MARKER}`;

/** Why a conversation was marked by a reply instead of resolved: the server has no resolve endpoint. */
const NO_RESOLVE_API = 'this server has no API to resolve conversations (Gitea before 1.26, Forgejo)';
/** … or the bot's account may not mark conversations there. */
const NO_RESOLVE_PERMISSION =
  "the bot's account may not resolve conversations on this repository (it needs write access to pull requests)";

function notFound(error: unknown): boolean {
  return error instanceof PlatformHttpError && error.status === 404;
}

/**
 * Longest one file's diff may compute, ms. jsdiff is O(N·D) and runs on the event loop: a pushed
 * commit that rewrites a 10,000-line file costs about 40 s without a bound.
 */
export const FILE_DIFF_TIMEOUT_MS = 250;

/**
 * The hunks (from the first `@@`) of `before` → `after`; undefined when there are none, null when
 * computing them would take longer than `timeoutMs` (the caller then gives up the comparison).
 */
export function hunksBetween(
  path: string,
  before: string,
  after: string,
  timeoutMs = FILE_DIFF_TIMEOUT_MS,
): string | undefined | null {
  const structured = structuredPatch(path, path, before, after, '', '', { context: 3, timeout: timeoutMs });
  if (!structured) return null;
  const patch = formatPatch(structured);
  const first = patch.indexOf('\n@@');
  if (first < 0) return undefined;
  return patch.slice(first + 1).replace(/\n+$/, '');
}

/**
 * One compared file from its text at both commits (null = absent there); undefined when unchanged,
 * null when its diff is too costly to compute (`hunksBetween`).
 */
function comparedFile(
  path: string,
  before: string | null,
  after: string | null,
): PullRequestFile | undefined | null {
  if (before === after) return undefined;
  const status = before === null ? 'added' : after === null ? 'removed' : 'modified';
  const file: PullRequestFile = { path, status, additions: 0, deletions: 0 };
  const binary = (before ?? '').includes('\0') || (after ?? '').includes('\0');
  if (binary) return file;
  const patch = hunksBetween(path, before ?? '', after ?? '');
  if (patch === undefined || patch === null) return patch;
  file.patch = patch;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+')) file.additions++;
    else if (line.startsWith('-')) file.deletions++;
  }
  return file;
}

/** The memory methods of the Gitea platform; `botLogins` names the bot (for addressed replies). */
export function giteaMemoryMethods(
  client: GiteaClient,
  call: GiteaCall,
  botLogins: () => Promise<string[]>,
): MemoryMethods {
  const read = async (repo: string, path: string, ref: string): Promise<string | null> => {
    try {
      return await client.repoGetRawFile(repo, path, ref);
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  };

  return {
    getFileContent(repo, path, ref) {
      return call(`read ${path} at ${ref.slice(0, 12)} of ${repo}`, () => read(repo, path, ref));
    },

    compareCommits(repo, base, head) {
      return call(`compare ${base.slice(0, 12)}...${head.slice(0, 12)} of ${repo}`, async () => {
        if (base === head) return { status: 'identical', files: [] };
        let compared;
        try {
          compared = await client.repoCompareDiff(repo, base, head);
        } catch (error) {
          if (!notFound(error)) throw error;
          // 404: a commit is unknown (e.g. gone after a force-push), or the server has no compare
          // API (it came with Gitea 1.22): tell them apart, so a full review names the right reason.
          const known = async (sha: string) =>
            client.repoGetSingleCommit(repo, sha).then(
              () => true,
              () => false,
            );
          if (!(await known(base)) || !(await known(head))) return null;
          throw new PlatformError('this server has no compare API (Gitea 1.22+ or a recent Forgejo needed)', {
            status: 404,
          });
        }
        const commits = compared.commits ?? [];
        // base is an ancestor of head exactly when a commit after the merge base has it as a parent.
        const ahead = commits.some((c) => (c.parents ?? []).some((p) => p.sha === base));
        const status: CompareStatus = ahead ? 'ahead' : commits.length === 0 ? 'behind' : 'diverged';
        if (status !== 'ahead') return { status, files: [] };
        const paths = [...new Set(commits.flatMap((c) => (c.files ?? []).map((f) => f.filename)))];
        const listedAll = (compared.total_commits ?? commits.length) <= commits.length;
        if (!listedAll || paths.length > MAX_COMPARED_FILES) return { status, files: [], truncated: true };
        const files: PullRequestFile[] = [];
        for (const path of paths) {
          const file = comparedFile(path, await read(repo, path, base), await read(repo, path, head));
          // A diff too costly to compute here: the comparison is cut short (a full review).
          if (file === null) return { status, files: [], truncated: true };
          if (file) files.push(file);
        }
        return { status, files } satisfies CommitComparison;
      });
    },

    async listCommitShas(repo, index) {
      const commits = await call(`list the commits of ${repo}#${index}`, () =>
        client.repoGetPullRequestCommits(repo, index),
      );
      return commits.map((c) => c.sha);
    },

    async listReviewThreads(repo, index) {
      return threadsOf(await listCodeComments(client, call, repo, index), await botLogins());
    },

    async resolveThread(repo, index, threadId) {
      const ref = `${repo}#${index}`;
      const refusal = await call(`resolve conversation ${threadId} on ${ref}`, async () => {
        try {
          await client.repoResolvePullReviewComment(repo, index, Number(threadId));
          return undefined;
        } catch (error) {
          // 404: no such endpoint (before Gitea 1.26, Forgejo); 403: the account may not mark
          // conversations (`CanMarkConversation`: write access to pull requests, or official reviewer).
          if (notFound(error)) return NO_RESOLVE_API;
          if (error instanceof PlatformHttpError && error.status === 403) return NO_RESOLVE_PERMISSION;
          throw error;
        }
      });
      if (refusal === undefined) return undefined;
      await replyInConversation(client, call, repo, index, threadId, ADDRESSED_REPLY);
      return { resolved: false, reason: refusal } satisfies MarkedThread;
    },
  };
}
