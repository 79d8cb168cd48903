/**
 * The identity of a parsed webhook event, for de-duplication beyond the delivery id (CONTRACT §5):
 * the delivery id is an unsigned header, so one signed body sent again under other ids is the same
 * event. Derived from the platform-neutral ReviewComment only, the same way for every platform:
 * - a comment: platform, repository, pull request, the kind of comment (`commentType`: GitHub
 *   numbers issue comments, review comments and reviews separately), its thread (`discussionId`:
 *   Azure DevOps numbers comments within a thread, each thread's first is 1) and its id. All of
 *   them are fixed for one comment; the id alone is not unique on every platform. The action is
 *   always the creation (GitHub's review: its submission): no parser turns an edit into an event;
 * - a comment without an id (Gitea's review payload carries none): platform, repository, pull
 *   request, head SHA, kind, author and the SHA-256 of the body;
 * - a lifecycle event: platform, repository, pull request, head SHA and eventType
 *   (`pr_opened`, `pr_push`, …);
 * - none when the event names neither (no comment id and no head SHA: nothing identifies it).
 */
import { createHash } from 'node:crypto';
import type { ReviewComment } from '../platforms/types.js';

function digest(parts: readonly (string | number)[]): string {
  // JSON keeps the parts apart whatever characters they hold.
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * The identity key of `comment`: 64 lowercase hex digits, the SHA-256 of a JSON array of the parts
 * above (led by `"comment"`, `"comment-text"` or `"head"`), or undefined when the event has none.
 */
export function eventIdentity(comment: ReviewComment): string | undefined {
  const { platform, repoFullName, prNumber, headSha } = comment;
  if (comment.eventType !== 'comment') {
    if (!headSha) return undefined;
    return digest(['head', platform, repoFullName, prNumber, headSha, comment.eventType]);
  }
  if (comment.commentId) {
    return digest([
      'comment',
      platform,
      repoFullName,
      prNumber,
      comment.commentType,
      comment.discussionId ?? '',
      comment.commentId,
    ]);
  }
  if (!headSha) return undefined;
  const body = createHash('sha256').update(comment.body).digest('hex');
  return digest([
    'comment-text',
    platform,
    repoFullName,
    prNumber,
    headSha,
    comment.commentType,
    comment.authorUsername,
    body,
  ]);
}
