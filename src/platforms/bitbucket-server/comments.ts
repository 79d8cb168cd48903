/**
 * Pull request comments on Bitbucket Data Center, read from the paged activity stream
 * (`GET …/pull-requests/{id}/activities`, Atlassian REST "Get activity"): each `COMMENTED` activity
 * carries a `RestComment` with its replies nested under `comments`; a root comment with an `anchor`
 * (or the activity's `commentAnchor`) is inline (`fileType` `TO` = new file, `FROM` = old file;
 * `lineType` `ADDED`/`CONTEXT`/`REMOVED`), one without is a general comment. A root's thread is
 * resolved when `threadResolved` is true. Bodies are `text` with the memory marker read back into
 * the project's form (`fromWire`).
 */
import { fromWire } from '../wire-markers.js';
import type { DiffSide, ExistingComment, LocatedComment, ReviewThread } from '../types.js';
import { repoParams, type BitbucketServerClient } from './client.js';
import type { PlatformCall as BitbucketServerCall } from '../http/index.js';
import { Activity, Comment, type CommentShape } from './schemas.js';

/** One comment as read here. */
export interface ServerComment {
  id: number;
  /** The comment's `version` (optimistic locking: updates must send it). */
  version: number;
  body: string;
  author: string;
  createdAt: string;
  inline?: { path: string; line?: number; side?: DiffSide };
  /** Id of the comment this one replies to. */
  parentId?: number;
  resolved: boolean;
  /** Who resolved the thread (`threadResolver`'s login), when resolved and reported. */
  resolvedBy?: string;
}

/** The login of a `RestApplicationUser`: its `name` (what `@mentions` and `X-AUSERNAME` use). */
export function loginOf(user: { name?: string | undefined; slug?: string | undefined } | undefined): string {
  return user?.name ?? user?.slug ?? '';
}

/** The fields of a Data Center comment anchor that place it on a line (REST and webhook alike). */
export interface AnchorLineFields {
  line?: number | null | undefined;
  lineType?: string | null | undefined;
  fileType?: string | null | undefined;
}

/**
 * The line of a Data Center comment anchor and the side it is numbered on: `fileType` `FROM` (the
 * source, i.e. old, file; a `REMOVED` line is always there) is LEFT, `TO` (the new file) RIGHT.
 * Undefined when the anchor has no line (a comment on the whole file) or there is no anchor.
 */
export function anchorLine(
  anchor: AnchorLineFields | null | undefined,
): { line: number; side: DiffSide } | undefined {
  if (!anchor?.line) return undefined;
  const left = anchor.fileType === 'FROM' || anchor.lineType === 'REMOVED';
  return { line: anchor.line, side: left ? 'LEFT' : 'RIGHT' };
}

/** Every comment of pull request `id` (replies included), oldest first. */
export async function listServerComments(
  client: BitbucketServerClient,
  call: BitbucketServerCall,
  repo: string,
  id: number,
): Promise<ServerComment[]> {
  const activities = await call(`list the activities of ${repo}#${id}`, async () =>
    client.all(Activity, async (start, limit) =>
      client.ok(
        await client.api.GET(
          '/api/latest/projects/{projectKey}/repos/{repositorySlug}/pull-requests/{pullRequestId}/activities',
          { params: { path: { ...repoParams(repo), pullRequestId: String(id) }, query: { start, limit } } },
        ),
      ),
    ),
  );
  const byId = new Map<number, ServerComment>();
  const parents = new Map<number, number>();
  const visit = (c: CommentShape, anchor: CommentShape['anchor'], parent?: number) => {
    if (parent !== undefined) parents.set(c.id, parent);
    const where = c.anchor ?? anchor;
    if (!byId.has(c.id) || where?.path) {
      byId.set(c.id, {
        id: c.id,
        version: c.version,
        body: fromWire(c.text),
        author: loginOf(c.author),
        createdAt: new Date(c.createdDate).toISOString(),
        ...(where?.path
          ? {
              inline: {
                path: where.path,
                ...anchorLine(where),
              },
            }
          : {}),
        resolved: c.threadResolved === true,
        ...(c.threadResolved && loginOf(c.threadResolver ?? undefined)
          ? { resolvedBy: loginOf(c.threadResolver ?? undefined) }
          : {}),
      });
    }
    for (const reply of c.comments) visit(reply, undefined, c.id);
  };
  for (const activity of activities) {
    if (activity.action !== 'COMMENTED' || activity.comment === undefined) continue;
    visit(Comment.parse(activity.comment), activity.commentAnchor);
  }
  const out: ServerComment[] = [];
  for (const comment of byId.values()) {
    const parentId = parents.get(comment.id);
    // A reply is inline only through its thread: keep the anchor on the root.
    if (parentId !== undefined) {
      delete comment.inline;
      comment.parentId = parentId;
    }
    out.push(comment);
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
}

/** `comments` as `ExistingComment`s. */
export function toExistingComments(comments: ServerComment[]): ExistingComment[] {
  return comments.map((c) => ({
    id: String(c.id),
    kind: c.inline ? 'review_comment' : 'issue_comment',
    authorUsername: c.author,
    body: c.body,
    ...(c.inline ? { path: c.inline.path } : {}),
    ...(c.inline?.line ? { line: c.inline.line, side: c.inline.side ?? 'RIGHT' } : {}),
    createdAt: c.createdAt,
    ...(c.inline ? { resolved: c.resolved } : {}),
  }));
}

/** The inline threads: each root inline comment with its `threadResolved` state and resolver. */
export function toReviewThreads(comments: ServerComment[]): ReviewThread[] {
  return comments
    .filter((c) => c.inline && c.parentId === undefined)
    .map((c) => ({
      id: String(c.id),
      path: c.inline?.path ?? '',
      ...(c.inline?.line ? { line: c.inline.line, side: c.inline.side ?? 'RIGHT' } : {}),
      resolved: c.resolved,
      outdated: false,
      authorUsername: c.author,
      body: c.body,
      commentId: String(c.id),
      ...(c.resolvedBy ? { resolvedBy: c.resolvedBy } : {}),
    }));
}

/**
 * The inline thread of comment `commentId` among `comments` (`listServerComments`): its root (the
 * thread's id, what replies answer under), path, line and side; undefined when the comment is
 * unknown or its root is a general comment. A webhook names only a reply's immediate parent
 * (`commentParentId`), so the `parentId` chain is walked to the top.
 */
export function serverThreadOf(comments: ServerComment[], commentId: number): LocatedComment | undefined {
  const byId = new Map(comments.map((c) => [c.id, c]));
  let current = byId.get(commentId);
  for (let hops = 0; current?.parentId !== undefined && hops < comments.length; hops++) {
    current = byId.get(current.parentId);
  }
  if (!current?.inline || current.parentId !== undefined) return undefined;
  const { path, line, side } = current.inline;
  return { discussionId: String(current.id), path, ...(line ? { line, side: side ?? 'RIGHT' } : {}) };
}
