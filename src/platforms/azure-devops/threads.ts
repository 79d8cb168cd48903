/**
 * Pull request threads on Azure DevOps (`GET …/pullRequests/{id}/threads`): every comment lives in
 * a thread; a thread with `threadContext.filePath` is anchored in a file (`rightFileStart/End` on
 * the new side, `leftFileStart/End` on the old side; `filePath` starts with `/`), one without is a
 * conversation thread. Deleted threads and comments and system comments (votes, pushes) are
 * skipped. Bodies are `content` with the memory marker read back into the project's form
 * (`fromWire`). Thread status (GitInterfaces `CommentThreadStatus`): active 1 and pending 6 are
 * open; fixed 2, wontFix 3, closed 4, byDesign 5 are resolved.
 */
import type { GitPullRequestCommentThread } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import type { DiffSide, ExistingComment, ReviewThread } from '../types.js';
import type { AzureClient } from './client.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { fromWire } from '../wire-markers.js';

/** `CommentThreadStatus` values (GitInterfaces.ts). */
export const THREAD_STATUS = { active: 1, fixed: 2, wontFix: 3, closed: 4, byDesign: 5, pending: 6 } as const;
/** `CommentType` values (GitInterfaces.ts): text 1, codeChange 2, system 3. */
export const COMMENT_TYPE = { text: 1, codeChange: 2, system: 3 } as const;

/** One comment of a thread as read here. */
export interface AzureComment {
  threadId: number;
  commentId: number;
  parentCommentId: number;
  author: string;
  authorId: string;
  body: string;
  createdAt: string;
}

/** One thread as read here. */
export interface AzureThread {
  id: number;
  resolved: boolean;
  /** Resolved with status `fixed` ("Resolved", the status the bot sets), not won't fix/closed/by design. */
  fixed: boolean;
  /** Repository path without the leading `/`, for threads anchored in a file. */
  path?: string;
  line?: number;
  startLine?: number;
  side?: DiffSide;
  comments: AzureComment[];
}

/** A `project/repo` full name split. */
export function splitRepo(fullName: string): { project: string; repo: string } {
  const [project = '', repo = ''] = fullName.split('/');
  return { project, repo };
}

function iso(date: unknown): string {
  if (date instanceof Date && !Number.isNaN(date.getTime())) return date.toISOString();
  return typeof date === 'string' ? date : '';
}

/** `thread` as an `AzureThread` (undefined when deleted or holding no comment a person wrote). */
export function toAzureThread(thread: GitPullRequestCommentThread): AzureThread | undefined {
  if (thread.isDeleted || thread.id === undefined) return undefined;
  const comments: AzureComment[] = [];
  for (const c of thread.comments ?? []) {
    if (c.isDeleted || c.id === undefined || c.commentType === COMMENT_TYPE.system) continue;
    comments.push({
      threadId: thread.id,
      commentId: c.id,
      parentCommentId: c.parentCommentId ?? 0,
      author: c.author?.uniqueName ?? '',
      authorId: c.author?.id ?? '',
      body: fromWire(c.content ?? ''),
      createdAt: iso(c.publishedDate),
    });
  }
  if (comments.length === 0) return undefined;
  const status = Number(thread.status ?? THREAD_STATUS.active);
  const context = thread.threadContext;
  const out: AzureThread = {
    id: thread.id,
    resolved: status !== THREAD_STATUS.active && status !== THREAD_STATUS.pending && status !== 0,
    fixed: status === THREAD_STATUS.fixed,
    comments,
  };
  if (context?.filePath) {
    out.path = context.filePath.replace(/^\/+/, '');
    const right = context.rightFileEnd ?? context.rightFileStart;
    const left = context.leftFileEnd ?? context.leftFileStart;
    const end = right ?? left;
    const start = right ? context.rightFileStart : context.leftFileStart;
    if (end?.line) {
      out.line = end.line;
      out.side = right ? 'RIGHT' : 'LEFT';
      if (start?.line && start.line < end.line) out.startLine = start.line;
    }
  }
  return out;
}

/** Every live thread of pull request `id` of `repo` (`project/repo`), oldest first. */
export async function listAzureThreads(
  client: AzureClient,
  call: AzureCall,
  repo: string,
  id: number,
): Promise<AzureThread[]> {
  const { project, repo: name } = splitRepo(repo);
  const threads = await call(`list the threads of ${repo}#${id}`, () =>
    client.send((git) => git.getThreads(name, id, project)),
  );
  const out: AzureThread[] = [];
  for (const thread of threads ?? []) {
    const t = toAzureThread(thread);
    if (t) out.push(t);
  }
  return out.sort((a, b) => (a.comments[0]?.createdAt ?? '').localeCompare(b.comments[0]?.createdAt ?? ''));
}

/** `threads` as `ExistingComment`s (every comment of every thread). */
export function toExistingComments(threads: AzureThread[]): ExistingComment[] {
  const out: ExistingComment[] = [];
  for (const t of threads) {
    for (const c of t.comments) {
      out.push({
        id: `${t.id}:${c.commentId}`,
        kind: t.path ? 'review_comment' : 'issue_comment',
        authorUsername: c.author,
        body: c.body,
        ...(t.path ? { path: t.path } : {}),
        ...(t.path && t.line ? { line: t.line, side: t.side ?? 'RIGHT' } : {}),
        createdAt: c.createdAt,
        ...(t.path ? { resolved: t.resolved } : {}),
      });
    }
  }
  return out;
}

/**
 * The threads anchored in a file, as `ReviewThread`s. Azure DevOps reports no "outdated" flag, and a
 * thread's status change carries no actor (the thread object names nobody who set it): instead of
 * `resolvedBy`, `resolvedAsFixed` tells the bot's resolution (`fixed`) from those only a person
 * chooses (won't fix, closed, by design).
 */
export function toReviewThreads(threads: AzureThread[]): ReviewThread[] {
  return threads
    .filter((t) => t.path)
    .map((t) => ({
      id: String(t.id),
      path: t.path ?? '',
      ...(t.line ? { line: t.line, side: t.side ?? 'RIGHT' } : {}),
      resolved: t.resolved,
      ...(t.resolved ? { resolvedAsFixed: t.fixed } : {}),
      outdated: false,
      authorUsername: t.comments[0]?.author ?? '',
      body: t.comments[0]?.body ?? '',
    }));
}
