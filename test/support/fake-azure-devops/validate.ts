/**
 * Request-body rules of the write operations the fake serves, from the Azure DevOps REST 7.1
 * reference (Git → Pull Request Threads "Create" / "Update", Pull Request Thread Comments "Create",
 * Pull Request Statuses "Create") and the contracts in `azure-devops-node-api`'s GitInterfaces.ts:
 * enums are accepted by number or by name (case-insensitive, as the service's JSON reader does),
 * anything else is a 400. A body the service would refuse is a `Violation`: the bot never sends one.
 */
import { COMMENT_TYPE, STATUS_STATE, THREAD_STATUS } from './protocol.js';

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPositiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 1;

/** True when `v` names a member of `names` (the enum in declaration order) by number or name. */
export function isEnumValue(names: readonly string[], v: unknown): boolean {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v < names.length;
  return typeof v === 'string' && names.some((n) => n.toLowerCase() === v.toLowerCase());
}

/** `Comment` of a new thread or a reply: `content` text, `parentCommentId` ≥ 0, `commentType` enum. */
function checkComment(c: unknown, where: string): string | undefined {
  if (!isObject(c)) return `${where} is not an object`;
  if (typeof c.content !== 'string' || c.content.trim() === '') return `${where}.content is required`;
  if (
    c.parentCommentId !== undefined &&
    !(Number.isInteger(c.parentCommentId) && (c.parentCommentId as number) >= 0)
  )
    return `${where}.parentCommentId is not a comment id`;
  if (c.commentType !== undefined && !isEnumValue(COMMENT_TYPE, c.commentType))
    return `${where}.commentType ${JSON.stringify(c.commentType)} is not a CommentType`;
  return undefined;
}

/** `CommentThreadContext`: a `filePath` from the root (`/src/a.ts`) and 1-based positions. */
function checkThreadContext(t: unknown): string | undefined {
  if (!isObject(t)) return 'threadContext is not an object';
  if (typeof t.filePath !== 'string' || !t.filePath.startsWith('/'))
    return 'threadContext.filePath must start with /';
  for (const key of ['leftFileStart', 'leftFileEnd', 'rightFileStart', 'rightFileEnd']) {
    const p = t[key];
    if (p === undefined || p === null) continue;
    if (!isObject(p) || !isPositiveInt(p.line) || !isPositiveInt(p.offset))
      return `threadContext.${key} needs a line and an offset of at least 1`;
  }
  return undefined;
}

/**
 * `GitPullRequestCommentThreadContext`: `changeTrackingId` an integer (its iterations are checked
 * against the pull request's by `badAnchor`).
 */
function checkPullRequestThreadContext(t: unknown): string | undefined {
  if (!isObject(t)) return 'pullRequestThreadContext is not an object';
  if (t.changeTrackingId !== undefined && !Number.isInteger(t.changeTrackingId)) {
    return 'pullRequestThreadContext.changeTrackingId is not an integer';
  }
  return undefined;
}

/** Why Azure DevOps refuses `body` as a new thread (`POST …/threads`), or undefined. */
export function threadCreateProblem(body: Body): string | undefined {
  if (!Array.isArray(body.comments) || body.comments.length === 0)
    return 'a thread needs at least one comment';
  for (const [i, c] of body.comments.entries()) {
    const why = checkComment(c, `comments[${i}]`);
    if (why) return why;
  }
  if (body.status !== undefined && !isEnumValue(THREAD_STATUS, body.status))
    return `status ${JSON.stringify(body.status)} is not a CommentThreadStatus`;
  if (body.threadContext !== undefined && body.threadContext !== null) {
    const why = checkThreadContext(body.threadContext);
    if (why) return why;
  }
  if (body.pullRequestThreadContext !== undefined && body.pullRequestThreadContext !== null) {
    const why = checkPullRequestThreadContext(body.pullRequestThreadContext);
    if (why) return why;
  }
  return undefined;
}

/** Why Azure DevOps refuses `body` as a thread update (`PATCH …/threads/:id`), or undefined. */
export function threadUpdateProblem(body: Body): string | undefined {
  if (Object.keys(body).length === 0) return 'the thread update is empty';
  if (body.status !== undefined && !isEnumValue(THREAD_STATUS, body.status))
    return `status ${JSON.stringify(body.status)} is not a CommentThreadStatus`;
  return undefined;
}

/** Why Azure DevOps refuses `body` as a reply (`POST …/threads/:id/comments`), or undefined. */
export function commentCreateProblem(body: Body): string | undefined {
  return checkComment(body, 'comment');
}

/** Why Azure DevOps refuses `body` as a pull request status (`POST …/statuses`), or undefined. */
export function statusCreateProblem(body: Body): string | undefined {
  if (!isEnumValue(STATUS_STATE, body.state))
    return `state ${JSON.stringify(body.state)} is not a GitStatusState`;
  const context = body.context;
  if (!isObject(context) || typeof context.name !== 'string' || context.name === '')
    return 'context.name is required';
  if (context.genre !== undefined && typeof context.genre !== 'string') return 'context.genre is not text';
  if (body.description !== undefined && typeof body.description !== 'string')
    return 'description is not text';
  if (body.targetUrl !== undefined) {
    if (typeof body.targetUrl !== 'string' || !URL.canParse(body.targetUrl))
      return 'targetUrl is not an absolute URL';
  }
  if (body.iterationId !== undefined && !isPositiveInt(body.iterationId))
    return 'iterationId is not an iteration id';
  return undefined;
}
