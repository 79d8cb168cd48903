/** Where a job replies (CONTRACT §2): in the thread the mention was written in. */
import type { ReplyTarget, ReviewComment } from '../platforms/types.js';

/**
 * The reply target of `comment`:
 * - GitHub review comment → a reply in its review-comment thread (`inReplyToCommentId` = the
 *   thread's top comment, `discussionId`, else the comment itself; GitHub cannot reply to a reply);
 * - GitLab note with a discussion → a reply in that discussion (`discussionId`);
 * - anything else (conversation comment, review body, lifecycle event) → a pull request comment.
 */
export function replyTargetOf(comment: ReviewComment): ReplyTarget {
  const target: ReplyTarget = { repoFullName: comment.repoFullName, prNumber: comment.prNumber };
  if (comment.platform === 'github') {
    if (comment.commentType === 'review_comment') {
      const threadId = comment.discussionId || comment.commentId;
      if (threadId) target.inReplyToCommentId = threadId;
    }
  } else if (comment.discussionId && comment.commentType !== 'lifecycle') {
    target.discussionId = comment.discussionId;
  }
  return target;
}
