/**
 * The GitLab side of review memory (CONTRACT §13, §14), on GitLab's REST v4 API:
 * - file text at a ref: `GET /projects/:id/repository/files/:file_path/raw?ref=` (repository_files.md);
 * - comparison: `GET /projects/:id/repository/merge_base?refs[]=` then
 *   `GET /projects/:id/repository/compare?from=&to=` (repositories.md);
 * - the merge request's commits: `GET /projects/:id/merge_requests/:iid/commits` (merge_requests.md);
 * - threads: the merge request's diff discussions (`GET .../discussions`, discussions.md);
 * - resolution: `PUT /projects/:id/merge_requests/:iid/discussions/:discussion_id` with `resolved=true`.
 */
import { z } from 'zod';
import type { CompareStatus, Platform, ReviewThread } from '../types.js';
import type { GitLabClient } from './client.js';
import { toPullRequestFile } from './diffs.js';
import { PlatformHttpError } from '../http/index.js';
import { Discussion, MergeRequestDiff } from './schemas.js';

type MemoryMethods = Required<
  Pick<
    Platform,
    'getFileContent' | 'compareCommits' | 'listCommitShas' | 'listReviewThreads' | 'resolveThread'
  >
>;

/** Runs a GitLab call, mapping failures to AuthError/PlatformError (the platform's `call`). */
export type GitLabCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

/** `GET .../repository/merge_base`: a commit. */
const Commit = z.object({ id: z.string() });
/** `GET .../repository/compare`. */
const Comparison = z.object({ diffs: z.array(MergeRequestDiff) });

function missing(error: unknown): boolean {
  return error instanceof PlatformHttpError && (error.status === 404 || error.status === 400);
}

/**
 * Threads of the discussions: diff discussions only, resolved when every resolvable note is, with
 * `resolvedBy` from the notes' `resolved_by` (GitLab sets it on each resolvable note).
 */
export function threadsOf(discussions: Discussion[]): ReviewThread[] {
  const out: ReviewThread[] = [];
  for (const discussion of discussions) {
    const first = discussion.notes[0];
    const path = first?.position?.new_path ?? first?.position?.old_path;
    if (!first || first.type !== 'DiffNote' || !path) continue;
    const resolvable = discussion.notes.filter((n) => n.resolvable);
    const position = first.position;
    const resolved = resolvable.length > 0 && resolvable.every((n) => n.resolved);
    const resolvedBy = resolved ? resolvable.find((n) => n.resolved_by)?.resolved_by?.username : undefined;
    const line = position?.new_line ?? position?.old_line ?? undefined;
    out.push({
      id: discussion.id,
      path,
      ...(line ? { line, side: position?.new_line ? ('RIGHT' as const) : ('LEFT' as const) } : {}),
      resolved,
      outdated: false,
      authorUsername: first.author.username,
      body: first.body,
      commentId: String(first.id),
      ...(resolvedBy ? { resolvedBy } : {}),
    });
  }
  return out;
}

/** The memory methods of the GitLab platform. */
export function gitLabMemoryMethods(client: GitLabClient, call: GitLabCall): MemoryMethods {
  const base = (project: string) => `projects/${encodeURIComponent(project)}`;
  const signal = () => AbortSignal.timeout(client.timeoutMs);
  const get = async (endpoint: string, searchParams: Record<string, unknown>): Promise<unknown> =>
    (await client.api.get(endpoint, { searchParams, signal: signal() })).body;

  return {
    async getFileContent(project, path, ref) {
      return call(`read ${path} at ${ref.slice(0, 12)} of ${project}`, async () => {
        try {
          const body = await get(`${base(project)}/repository/files/${encodeURIComponent(path)}/raw`, {
            ref,
          });
          return typeof body === 'string' ? body : JSON.stringify(body);
        } catch (error) {
          if (error instanceof PlatformHttpError && error.status === 404) return null;
          throw error;
        }
      });
    },

    async compareCommits(project, from, to) {
      return call(`compare ${from.slice(0, 12)}...${to.slice(0, 12)} of ${project}`, async () => {
        let mergeBase: string;
        try {
          mergeBase = Commit.parse(
            await get(`${base(project)}/repository/merge_base`, { refs: [from, to] }),
          ).id;
        } catch (error) {
          if (missing(error)) return null;
          throw error;
        }
        const status: CompareStatus =
          from === to ? 'identical' : mergeBase === from ? 'ahead' : mergeBase === to ? 'behind' : 'diverged';
        if (status !== 'ahead') return { status, files: [] };
        const compared = Comparison.parse(
          await get(`${base(project)}/repository/compare`, { from, to, straight: false }),
        );
        return { status, files: compared.diffs.map(toPullRequestFile) };
      });
    },

    async listCommitShas(project, iid) {
      const commits = await call(`list the commits of ${project}!${iid}`, () =>
        client.mergeRequests.allCommits(project, iid, { perPage: 100 }),
      );
      return Commit.array()
        .parse(commits)
        .map((c) => c.id);
    },

    async listReviewThreads(project, iid) {
      const discussions = await call(`list the discussions of ${project}!${iid}`, () =>
        client.discussions.all(project, iid, { perPage: 100 }),
      );
      return threadsOf(Discussion.array().parse(discussions));
    },

    async resolveThread(project, iid, discussionId) {
      await call(`resolve discussion ${discussionId} on ${project}!${iid}`, () =>
        client.api.put(
          `${base(project)}/merge_requests/${iid}/discussions/${encodeURIComponent(discussionId)}`,
          {
            body: { resolved: true },
            signal: signal(),
          },
        ),
      );
    },
  };
}
