/**
 * A REVIEWER or WORKER mention placed in the inline thread it was written in when its event did
 * not say so (`Platform.locateComment`): Gitea delivers a reply in a code conversation as a plain
 * `issue_comment` with no path or line, and Bitbucket Cloud names only the immediate parent of a
 * reply. Placed, the job knows the file and line it was asked about, and its answer lands in that
 * thread (`replyTargetOf` reads `discussionId`) instead of the pull request's conversation.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Platform, ReviewComment } from '../platforms/types.js';

/**
 * `comment` as a `review_comment` of its inline thread (`discussionId` = the thread's first
 * comment, `filePath`, and `line`/`side`/`diffHunk` where the platform says), when the platform can
 * locate it and the event left the place out (an `issue_comment`, or a `review_comment` without a
 * file). Otherwise, or when the lookup fails (logged as a warning), `comment` unchanged: the
 * answer then goes to the pull request's conversation, as before.
 */
export async function placeInThread(
  platform: Platform,
  comment: ReviewComment,
  logger: Logger,
): Promise<ReviewComment> {
  const unplaced =
    comment.commentType === 'issue_comment' ||
    (comment.commentType === 'review_comment' && !comment.filePath);
  if (!platform.locateComment || !comment.commentId || !unplaced) return comment;
  try {
    const found = await platform.locateComment(comment.repoFullName, comment.prNumber, comment.commentId);
    if (!found) return comment;
    return {
      ...comment,
      commentType: 'review_comment',
      discussionId: found.discussionId,
      filePath: found.path,
      ...(found.line !== undefined ? { line: found.line } : {}),
      ...(found.side ? { side: found.side } : {}),
      ...(found.diffHunk ? { diffHunk: found.diffHunk } : {}),
    };
  } catch (error) {
    logger.warn(
      { err: describeError(error) },
      'could not find the thread of the comment; answering on the pull request',
    );
    return comment;
  }
}
