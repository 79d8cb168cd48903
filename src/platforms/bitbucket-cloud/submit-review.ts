/**
 * A review on Bitbucket Cloud, which has no review object: each inline finding is one comment
 * (`POST …/pullrequests/{id}/comments` with `inline`), then the summary is one conversation
 * comment carrying the review marker (so memory records the review only once it has landed).
 *
 * Anchors (Bitbucket API "Create a comment on a pull request"): `inline.to` is a line of the new
 * file (added or context), `inline.from` a line of the old file (removed); a range adds
 * `start_to`/`start_from`. A re-run posts nothing twice: an inline comment the bot already posted
 * at the same place with the same body is skipped. If one inline comment is rejected, the others
 * and the summary still land; the rejected ones are listed in the summary.
 */
import { codeSpan, neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import type { InlineComment, Posted, ReviewSubmission } from '../types.js';
import { repoParams, type BitbucketClient } from './client.js';
import { listBitbucketComments } from './comments.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';
import { toWire } from '../wire-markers.js';
import { Comment } from './schemas.js';

/** Heading of the summary's list of findings Bitbucket refused to place inline. */
export const UNPLACED_HEADING = 'Findings that could not be placed inline';

/** The `inline` anchor of `comment`. */
export function anchorOf(comment: InlineComment): Record<string, string | number> {
  const right = comment.side === 'RIGHT';
  const start =
    comment.startLine !== undefined && comment.startLine < comment.line ? comment.startLine : undefined;
  return {
    path: comment.path,
    ...(right ? { to: comment.line } : { from: comment.line }),
    ...(start !== undefined ? (right ? { start_to: start } : { start_from: start }) : {}),
  };
}

/** The summary `body` with `unplaced` findings listed before its trailing marker. */
function withUnplaced(body: string, unplaced: InlineComment[]): string {
  if (unplaced.length === 0) return body;
  const text = withoutOwnMarker(body);
  const marker = body.slice(text.length);
  const items = unplaced.map(
    (c) =>
      `- ${codeSpan(c.path)} line ${c.line} (${c.side}):\n\n${withoutOwnMarker(c.body).replace(/^/gm, '  ')}`,
  );
  return `${text}\n\n${neutraliseMarkers(`### ${UNPLACED_HEADING}\n\n${items.join('\n\n')}`)}${marker}`;
}

/**
 * Posts `review` on pull request `id` of `repo` as the bot `botLogin()`.
 * @throws AuthError / PlatformError when the summary cannot be posted (inline failures are listed).
 */
export async function submitBitbucketReview(
  client: BitbucketClient,
  call: BitbucketCall,
  botLogin: () => Promise<string>,
  repo: string,
  id: number,
  review: ReviewSubmission,
): Promise<Posted> {
  const bot = await botLogin();
  // Without a known identity (GET /user refused), any identical inline comment counts as posted.
  const existing = (await listBitbucketComments(client, call, repo, id)).filter(
    (c) => (bot === '' || c.author === bot) && c.inline,
  );
  const path = { ...repoParams(repo), pull_request_id: id };
  const unplaced: InlineComment[] = [];
  for (const comment of review.comments) {
    const already = existing.some(
      (c) =>
        c.inline?.path === comment.path &&
        c.inline.line === comment.line &&
        c.inline.side === comment.side &&
        c.body.trim() === comment.body.trim(),
    );
    if (already) continue;
    try {
      await call(`post an inline comment on ${comment.path}:${comment.line} of ${repo}#${id}`, async () =>
        client.ok(
          await client.api.POST(
            '/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments',
            {
              params: { path },
              body: {
                type: 'pullrequest_comment',
                content: { raw: toWire(comment.body) },
                inline: anchorOf(comment) as { path: string },
              },
            },
          ),
        ),
      );
    } catch {
      unplaced.push(comment);
    }
  }
  const summary = await call(`post the review summary on ${repo}#${id}`, async () =>
    client.ok(
      await client.api.POST('/repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments', {
        params: { path },
        body: { type: 'pullrequest_comment', content: { raw: toWire(withUnplaced(review.body, unplaced)) } },
      }),
    ),
  );
  const parsed = Comment.parse(summary);
  const commentId = String(parsed.id);
  return {
    id: commentId,
    url: parsed.links?.html?.href ?? `https://bitbucket.org/${repo}/pull-requests/${id}#comment-${commentId}`,
  };
}
