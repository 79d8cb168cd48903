/**
 * Bitbucket Data Center webhook payload → ReviewComment (CONTRACT §6–§7). Pure; never throws; what
 * it does not handle comes back as `{ kind: 'ignored', reason }`. The event is `X-Event-Key`:
 * - `pr:comment:added` → a general comment (`issue_comment`), or an inline one (`review_comment`
 *   with path, line and side when the comment has an `anchor`: `fileType` `FROM` = a line of the old
 *   file, LEFT, else RIGHT, as the REST read path); `discussionId` = the comment itself, so the
 *   reply is posted under it, in its thread (`parent: {id}`);
 * - `pr:opened` → lifecycle `pr_opened`; `pr:from_ref_updated` (the source branch moved) →
 *   lifecycle `pr_push`.
 * Data Center reports full 40-character hashes: `headSha` is the source ref's `latestCommit`.
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';
import { anchorLine, loginOf } from './comments.js';
import { ServerCommentEvent, ServerPullRequestEvent } from './webhook-schema.js';

const LIFECYCLE: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['pr:opened', 'pr_opened'],
  ['pr:from_ref_updated', 'pr_push'],
]);

type PullRequestEvent = ReturnType<typeof ServerPullRequestEvent.parse>;

function common(event: PullRequestEvent, deliveryId: string) {
  const pr = event.pullRequest;
  const base = pr.toRef.repository;
  return {
    platform: 'bitbucket-server' as const,
    repoFullName: `${base.project.key}/${base.slug}`,
    prNumber: pr.id,
    prTitle: pr.title ?? '',
    prBranch: pr.fromRef.displayId,
    baseBranch: pr.toRef.displayId,
    headSha: pr.fromRef.latestCommit,
    cloneUrl: '',
    deliveryId,
  };
}

/** Parses one delivery (`eventKey` = `X-Event-Key`, `deliveryId` = `X-Request-Id` or `''`). */
export function parseBitbucketServerWebhook(
  eventKey: string | undefined,
  deliveryId: string,
  body: Record<string, unknown>,
): WebhookParseResult {
  if (!eventKey) return ignored('missing X-Event-Key header');
  if (eventKey === 'pr:comment:added') {
    const checked = checkPayload(ServerCommentEvent, eventKey, body);
    if (!checked.ok) return checked.result;
    const { comment } = checked.data;
    const anchor = comment.anchor;
    const result: ReviewComment = {
      ...common(checked.data, deliveryId),
      commentId: String(comment.id),
      commentType: anchor ? 'review_comment' : 'issue_comment',
      authorUsername: loginOf(comment.author ?? checked.data.actor),
      body: comment.text ?? '',
      ...(anchor ? { filePath: anchor.path } : {}),
      ...anchorLine(anchor),
      discussionId: String(comment.id),
      eventType: 'comment',
    };
    return { kind: 'event', comment: result };
  }
  const lifecycle = LIFECYCLE.get(eventKey);
  if (!lifecycle) return ignored(`event "${eventKey}" not handled`);
  const checked = checkPayload(ServerPullRequestEvent, eventKey, body);
  if (!checked.ok) return checked.result;
  return {
    kind: 'event',
    comment: {
      ...common(checked.data, deliveryId),
      commentId: '',
      commentType: 'lifecycle',
      authorUsername: loginOf(checked.data.actor),
      body: '',
      eventType: lifecycle,
    },
  };
}
