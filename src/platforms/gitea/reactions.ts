/**
 * Gitea's (and Forgejo's) reactions on a comment (CONTRACT §20), `GET
 * /repos/{owner}/{repo}/issues/comments/{id}/reactions` (`issueGetCommentReactions`): code (inline
 * review) comments live in the same comment table as conversation comments, so one endpoint serves
 * both; Gitea has no pull-review-comment reactions endpoint. A review body is not a comment and has
 * no reactions. Gitea names reactions as GitHub does (`+1`, `-1`, `eyes`, …: `[ui] REACTIONS`).
 */
import type { CommentReaction, Platform } from '../types.js';
import type { GiteaClient } from './client.js';
import type { GiteaCall } from './submit-review.js';

/** The `listReactions` method of the Gitea platform. */
export function giteaReactionMethods(
  client: GiteaClient,
  call: GiteaCall,
): Required<Pick<Platform, 'listReactions'>> {
  return {
    async listReactions(target) {
      if (target.commentType === 'review' || !/^\d+$/.test(target.commentId)) return [];
      const reactions = await call(
        `list the reactions on comment ${target.commentId} of ${target.repoFullName}#${target.prNumber}`,
        () => client.issueGetCommentReactions(target.repoFullName, target.commentId),
      );
      return reactions.map((r): CommentReaction => ({ content: r.content, username: r.user?.login ?? '' }));
    },
  };
}
