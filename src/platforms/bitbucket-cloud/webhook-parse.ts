/**
 * Bitbucket Cloud webhook payload → ReviewComment (CONTRACT §6–§7). Pure; never throws; what it does
 * not handle comes back as `{ kind: 'ignored', reason }`. The event is `X-Event-Key`:
 * - `pullrequest:comment_created` → a conversation comment (`issue_comment`), or an inline one
 *   (`review_comment` with path, line and side: `inline.to` → RIGHT, only `from` → LEFT, the
 *   old file's line; `discussionId` = the comment it answers, its
 *   `parent`, which for a reply to a reply is not the thread's top comment: jobs that need the
 *   thread walk up with `locateComment`);
 * - `pullrequest:created` → lifecycle `pr_opened`; `pullrequest:updated` → lifecycle `pr_push`.
 *   Bitbucket sends `updated` for title or description edits too and its payload does not say
 *   whether commits changed; a lifecycle run on a head the bot already reviewed runs nothing
 *   (§13), so an edit costs one pull request fetch and posts nothing.
 * `authorUsername` is the author's `{<account id>}` (`identityOf`), never the nickname: nicknames
 * are not unique, so `allowed_users` and the bot's own identity are compared on account ids.
 * `headSha` is left empty: Bitbucket reports 12-character hashes and `headSha` is always a full
 * SHA; jobs fetch the pull request, whose hashes the platform resolves (`getPullRequest`).
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';
import { displayNameOf, identityOf } from './comments.js';
import { BitbucketCommentEvent, BitbucketPullRequestEvent } from './webhook-schema.js';

const LIFECYCLE: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['pullrequest:created', 'pr_opened'],
  ['pullrequest:updated', 'pr_push'],
]);

type PullRequestEvent = ReturnType<typeof BitbucketPullRequestEvent.parse>;

function common(event: PullRequestEvent, deliveryId: string) {
  const pr = event.pullrequest;
  return {
    platform: 'bitbucket' as const,
    repoFullName: event.repository.full_name,
    prNumber: pr.id,
    prTitle: pr.title ?? '',
    prBranch: pr.source.branch.name,
    baseBranch: pr.destination.branch.name,
    headSha: '',
    cloneUrl: '',
    deliveryId,
  };
}

/**
 * `authorName` when the account has a readable name (shown to people, never compared), on one line:
 * control characters become spaces (it goes into commit messages).
 */
function named(name: string): { authorName?: string } {
  const oneLine = Array.from(name, (ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch)).join('');
  const line = oneLine.replace(/ {2,}/g, ' ').trim().slice(0, 255);
  return line ? { authorName: line } : {};
}

/**
 * Parses one delivery (`eventKey` = `X-Event-Key`, `deliveryId` = `X-Request-UUID` or `''`).
 */
export function parseBitbucketWebhook(
  eventKey: string | undefined,
  deliveryId: string,
  body: Record<string, unknown>,
): WebhookParseResult {
  if (!eventKey) return ignored('missing X-Event-Key header');
  if (eventKey === 'pullrequest:comment_created') {
    const checked = checkPayload(BitbucketCommentEvent, eventKey, body);
    if (!checked.ok) return checked.result;
    const { comment } = checked.data;
    const inline = comment.inline;
    const line = inline?.to ?? inline?.from ?? undefined;
    const result: ReviewComment = {
      ...common(checked.data, deliveryId),
      commentId: String(comment.id),
      commentType: inline ? 'review_comment' : 'issue_comment',
      authorUsername: identityOf(comment.user ?? checked.data.actor),
      ...named(displayNameOf(comment.user ?? checked.data.actor)),
      body: comment.content.raw ?? '',
      ...(inline ? { filePath: inline.path } : {}),
      ...(inline && line ? { line, side: inline.to ? 'RIGHT' : 'LEFT' } : {}),
      ...(inline ? { discussionId: String(comment.parent?.id ?? comment.id) } : {}),
      eventType: 'comment',
    };
    return { kind: 'event', comment: result };
  }
  const lifecycle = LIFECYCLE.get(eventKey);
  if (!lifecycle) return ignored(`event "${eventKey}" not handled`);
  const checked = checkPayload(BitbucketPullRequestEvent, eventKey, body);
  if (!checked.ok) return checked.result;
  return {
    kind: 'event',
    comment: {
      ...common(checked.data, deliveryId),
      commentId: '',
      commentType: 'lifecycle',
      authorUsername: identityOf(checked.data.actor),
      body: '',
      eventType: lifecycle,
    },
  };
}
