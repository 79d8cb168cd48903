/**
 * Gitea's inline conversations as `ReviewThread`s. Gitea has no thread object: a conversation is
 * every code comment on the same file and signed line (`models/issues/comment_code.go`
 * `fetchCodeCommentsByReview` groups by tree path, then line), across reviews; resolving marks its
 * first comment (`resolver` set). The API lists code comments per review
 * (`GET .../reviews/{id}/comments`), so threads are rebuilt from every submitted review.
 */
import type { DiffSide, LocatedComment, ReviewThread } from '../types.js';
import type { GiteaCall } from './submit-review.js';
import type { GiteaClient } from './client.js';
import type { PullReviewComment } from './schemas.js';

/**
 * Marker of the bot's "addressed" reply, the resolution of a thread on servers without the resolve
 * endpoint (before Gitea 1.26): a conversation holding it counts as resolved.
 */
export const ADDRESSED_MARKER = '<!-- reviewbot:addressed -->';

/** Side and line of a review comment (`position` = new line, `original_position` = old line). */
export function placeOf(c: PullReviewComment): { side: DiffSide; line: number } | undefined {
  if (c.position) return { side: 'RIGHT', line: c.position };
  if (c.original_position) return { side: 'LEFT', line: c.original_position };
  return undefined;
}

/** Every submitted code comment of the pull request, oldest first. */
export async function listCodeComments(
  client: GiteaClient,
  call: GiteaCall,
  repo: string,
  index: number,
): Promise<PullReviewComment[]> {
  const ref = `${repo}#${index}`;
  const reviews = await call(`list the reviews of ${ref}`, () => client.repoListPullReviews(repo, index));
  const out: PullReviewComment[] = [];
  for (const review of reviews) {
    // A pending review is its author's draft: Gitea shows it to nobody else.
    if (review.state === 'PENDING' || !review.comments_count) continue;
    out.push(
      ...(await call(`list the comments of review ${review.id} on ${ref}`, () =>
        client.repoGetPullReviewComments(repo, index, review.id),
      )),
    );
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
}

/** Groups code comments into conversations (key: path, side, line), first comment first. */
export function conversationsOf(comments: PullReviewComment[]): PullReviewComment[][] {
  const groups = new Map<string, PullReviewComment[]>();
  for (const c of comments) {
    const place = placeOf(c);
    const key = JSON.stringify([c.path, place?.side ?? '', place?.line ?? 0]);
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  return [...groups.values()];
}

/**
 * Threads of the code comments: id = the first comment's id; resolved when Gitea marked the first
 * comment resolved, or when `botLogins` replied with `ADDRESSED_MARKER`; `resolvedBy` is the first
 * comment's `resolver`, else the bot that replied so. Gitea's API does not say whether a
 * conversation is outdated: `outdated` is false.
 */
export function threadsOf(comments: PullReviewComment[], botLogins: string[]): ReviewThread[] {
  const bots = new Set(botLogins.map((l) => l.toLowerCase()));
  return conversationsOf(comments).map((group) => {
    const first = group[0] as PullReviewComment;
    const place = placeOf(first);
    const addressedBy = group.find(
      (c) => bots.has((c.user?.login ?? '').toLowerCase()) && c.body.includes(ADDRESSED_MARKER),
    );
    const resolvedBy = first.resolver?.login ?? addressedBy?.user?.login;
    return {
      id: String(first.id),
      path: first.path,
      ...(place ? { line: place.line, side: place.side } : {}),
      resolved: Boolean(first.resolver) || Boolean(addressedBy),
      outdated: false,
      authorUsername: first.user?.login ?? '',
      body: first.body,
      commentId: String(first.id),
      ...(resolvedBy ? { resolvedBy } : {}),
    };
  });
}

/**
 * The conversation of code comment `commentId` among `comments`: its first comment's id (the
 * thread's id, what `replyInConversation` answers in), path, line and side (shared by the whole
 * conversation) and diff hunk; undefined when no code comment has that id (a conversation comment
 * of the pull request).
 */
export function conversationOf(comments: PullReviewComment[], commentId: string): LocatedComment | undefined {
  const group = conversationsOf(comments).find((g) => g.some((c) => String(c.id) === commentId));
  const first = group?.[0];
  if (!first) return undefined;
  const place = placeOf(first);
  return {
    discussionId: String(first.id),
    path: first.path,
    ...(place ? { line: place.line, side: place.side } : {}),
    ...(first.diff_hunk ? { diffHunk: first.diff_hunk } : {}),
  };
}
