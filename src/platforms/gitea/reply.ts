/**
 * Replies in an inline conversation. Gitea's API has no "reply to review comment" operation; a
 * conversation is every code comment on one file and signed line (see `threads.ts`), so a reply is
 * a `COMMENT` review holding one comment at the same path and position.
 */
import { PlatformError } from '../../errors.js';
import type { Posted } from '../types.js';
import type { GiteaClient } from './client.js';
import type { GiteaCall } from './submit-review.js';
import { listCodeComments, placeOf } from './threads.js';

/**
 * Posts `body` in the conversation of review comment `commentId` on pull request `index`.
 * @returns the new code comment.
 * @throws PlatformError (404) when no submitted code comment has that id; AuthError/PlatformError from Gitea.
 */
export async function replyInConversation(
  client: GiteaClient,
  call: GiteaCall,
  repo: string,
  index: number,
  commentId: string,
  body: string,
): Promise<Posted> {
  const ref = `${repo}#${index}`;
  const comments = await listCodeComments(client, call, repo, index);
  const target = comments.find((c) => String(c.id) === commentId);
  const place = target ? placeOf(target) : undefined;
  if (!target || !place) {
    throw new PlatformError(`Gitea has no inline comment ${commentId} on ${ref} to reply to`, {
      status: 404,
    });
  }
  const review = await call(`reply to comment ${commentId} on ${ref}`, () =>
    client.repoCreatePullReview(repo, index, {
      body: '',
      event: 'COMMENT',
      comments: [
        {
          path: target.path,
          body,
          new_position: place.side === 'RIGHT' ? place.line : 0,
          old_position: place.side === 'LEFT' ? place.line : 0,
        },
      ],
    }),
  );
  const created = await call(`read the reply on ${ref}`, () =>
    client.repoGetPullReviewComments(repo, index, review.id),
  );
  const comment = created[0];
  return comment
    ? { id: String(comment.id), url: comment.html_url }
    : { id: String(review.id), url: review.html_url };
}
