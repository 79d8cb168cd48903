/**
 * Reading reactions on GitHub comments (CONTRACT §20 dismissals): `GET /repos/{owner}/{repo}/pulls/
 * comments/{comment_id}/reactions` for inline review comments and `.../issues/comments/{id}/reactions`
 * for conversation comments (REST "Reactions"; all pages). Review bodies carry no reactions.
 */
import type { CommentReaction, Platform } from '../types.js';
import type { GitHubClient } from './client.js';
import type { GitHubCall } from './memory-api.js';

function splitRepo(fullName: string): { owner: string; repo: string } {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length > 0) throw new Error(`not a GitHub repository name: ${fullName}`);
  return { owner, repo };
}

/** The `listReactions` method of the GitHub platform. */
export function gitHubReactionMethods(
  client: GitHubClient,
  call: GitHubCall,
): Required<Pick<Platform, 'listReactions'>> {
  return {
    async listReactions(target) {
      if (target.commentType === 'review') return [];
      const params = {
        ...splitRepo(target.repoFullName),
        comment_id: Number(target.commentId),
        per_page: 100,
      };
      return call(`list the reactions on comment ${target.commentId}`, async () => {
        const reactions =
          target.commentType === 'review_comment'
            ? await client.paginate(client.rest.reactions.listForPullRequestReviewComment, params)
            : await client.paginate(client.rest.reactions.listForIssueComment, params);
        return reactions.map((r): CommentReaction => ({ content: r.content, username: r.user?.login ?? '' }));
      });
    },
  };
}
