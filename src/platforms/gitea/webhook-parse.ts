/**
 * Gitea/Forgejo webhook payload → ReviewComment (CONTRACT §6–§7). Pure: a function of the event
 * headers, the delivery id and the JSON-parsed body; what it does not handle comes back as
 * `{ kind: 'ignored', reason }`; it never throws.
 *
 * Gitea names each delivery twice (`services/webhook/deliver.go`, `modules/webhook/type.go`):
 * `X-Gitea-Event` is the coarse event (`HookEventType.Event()`), `X-Gitea-Event-Type` the finer
 * hook event type. A pull request conversation comment is event `issue_comment`, type
 * `pull_request_comment`; a submitted review is event `pull_request_comment` (or `_approved`,
 * `_rejected`), type `pull_request_review_comment` (`_approved`, `_rejected`), action `reviewed`; a
 * push to the head branch is event `pull_request`, type `pull_request_sync`, action `synchronized`.
 * Forgejo sends the same values under `X-Forgejo-Event`/`X-Forgejo-Event-Type` as well.
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';
import { GiteaCommentEvent, GiteaPullRequestEvent, type GiteaPullRequest } from './webhook-schema.js';

/** The delivery's event names as sent: `X-Gitea-Event` and `X-Gitea-Event-Type` (or Forgejo's). */
export interface GiteaEventHeaders {
  event?: string | undefined;
  eventType?: string | undefined;
}

/** What a delivery is, whichever header named it. */
type EventKind = 'comment' | 'review' | 'pull_request';

/** `X-Gitea-Event-Type` values handled (`HookEventType`). */
const BY_EVENT_TYPE: ReadonlyMap<string, EventKind> = new Map<string, EventKind>([
  ['issue_comment', 'comment'],
  ['pull_request_comment', 'comment'],
  ['pull_request_review_comment', 'review'],
  ['pull_request_review_approved', 'review'],
  ['pull_request_review_rejected', 'review'],
  ['pull_request', 'pull_request'],
  ['pull_request_sync', 'pull_request'],
]);

/** `X-Gitea-Event` values handled when no event type is sent (`HookEventType.Event()`). */
const BY_EVENT: ReadonlyMap<string, EventKind> = new Map<string, EventKind>([
  ['issue_comment', 'comment'],
  ['pull_request_comment', 'review'],
  ['pull_request_approved', 'review'],
  ['pull_request_rejected', 'review'],
  ['pull_request', 'pull_request'],
]);

/** `pull_request` actions (`HookIssueAction`) that are lifecycle triggers, and their eventType. */
const LIFECYCLE_ACTIONS: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['opened', 'pr_opened'],
  ['synchronized', 'pr_push'],
  ['reopened', 'pr_reopened'],
]);

/** Branches, SHAs, title and clone URL of a pull request (clone URL of the head repository). */
function pullRequestFields(pr: GiteaPullRequest) {
  return {
    prNumber: pr.number,
    prTitle: pr.title ?? '',
    prBranch: pr.head.ref,
    headSha: pr.head.sha,
    baseBranch: pr.base.ref,
    // A deleted fork has no head repository; the base repository still serves refs/pull/N/head.
    cloneUrl: pr.head.repo?.clone_url ?? pr.base.repo?.clone_url ?? '',
  };
}

function parseComment(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(GiteaCommentEvent, 'issue_comment', body);
  if (!checked.ok) return checked.result;
  const { issue, pull_request: pr, comment, repository, sender, is_pull: isPull } = checked.data;
  if (!issue.pull_request && !isPull && !pr) return ignored('not a pull request');
  // Without `pull_request` (releases before it was added) the branches and SHAs are empty: jobs fetch the PR.
  const fields = pr
    ? pullRequestFields(pr)
    : { prTitle: '', prBranch: '', headSha: '', baseBranch: '', cloneUrl: '' };
  const result: ReviewComment = {
    platform: 'gitea',
    repoFullName: repository.full_name,
    ...fields,
    prNumber: issue.number,
    prTitle: issue.title ?? fields.prTitle,
    commentId: comment.id,
    commentType: 'issue_comment',
    authorUsername: comment.user?.login ?? sender?.login ?? '',
    body: comment.body ?? '',
    deliveryId,
    eventType: 'comment',
  };
  return { kind: 'event', comment: result };
}

function parseReview(body: Record<string, unknown>, deliveryId: string, name: string): WebhookParseResult {
  const checked = checkPayload(GiteaPullRequestEvent, name, body);
  if (!checked.ok) return checked.result;
  const { pull_request: pr, repository, sender, review } = checked.data;
  const text = review?.content ?? '';
  if (text.trim() === '') return ignored(`${name} review has no body`);
  return {
    kind: 'event',
    comment: {
      platform: 'gitea',
      repoFullName: repository.full_name,
      ...pullRequestFields(pr),
      // `ReviewPayload` carries no review id: nothing to react to, replies go to the conversation.
      commentId: '',
      commentType: 'review',
      authorUsername: sender.login,
      body: text,
      deliveryId,
      eventType: 'comment',
    },
  };
}

function parsePullRequest(
  body: Record<string, unknown>,
  deliveryId: string,
  eventType: EventType,
): WebhookParseResult {
  const checked = checkPayload(GiteaPullRequestEvent, 'pull_request', body);
  if (!checked.ok) return checked.result;
  const { pull_request: pr, repository, sender } = checked.data;
  return {
    kind: 'event',
    comment: {
      platform: 'gitea',
      repoFullName: repository.full_name,
      ...pullRequestFields(pr),
      commentId: '',
      commentType: 'lifecycle',
      authorUsername: sender.login,
      body: '',
      deliveryId,
      eventType,
    },
  };
}

/**
 * Parses one Gitea or Forgejo delivery (`headers` = its event names, `deliveryId` = the
 * `X-Gitea-Delivery` header or `''`) into a ReviewComment:
 * - a comment (`issue_comment` / `pull_request_comment`) `created` on a pull request →
 *   `issue_comment` (Gitea's comment payload says nothing of a file or line, also for a reply in a
 *   code conversation; the job finds the conversation by the comment's id, `locateComment`, and
 *   answers there);
 * - a review (`pull_request_review_comment`, `_approved`, `_rejected`) `reviewed` with a non-blank
 *   body → `review` (author = the reviewer);
 * - `pull_request` `opened`/`synchronized`/`reopened` → `lifecycle` with eventType
 *   `pr_opened`/`pr_push`/`pr_reopened`, author = sender.
 * The finer event type decides when sent, else the event. Everything else is ignored with a reason.
 */
export function parseGiteaWebhook(
  headers: GiteaEventHeaders,
  deliveryId: string,
  body: Record<string, unknown>,
): WebhookParseResult {
  const { event, eventType } = headers;
  if (!event && !eventType) return ignored('missing X-Gitea-Event header');
  const name = eventType || (event as string);
  const kind = eventType ? BY_EVENT_TYPE.get(eventType) : BY_EVENT.get(event as string);
  if (!kind) return ignored(`event "${name}" not handled`);
  const action = typeof body.action === 'string' ? body.action : undefined;
  const unhandled = () => ignored(`${name} action "${action ?? '(none)'}" not handled`);
  switch (kind) {
    case 'comment':
      return action === 'created' ? parseComment(body, deliveryId) : unhandled();
    case 'review':
      return action === 'reviewed' ? parseReview(body, deliveryId, name) : unhandled();
    case 'pull_request': {
      const lifecycle = action !== undefined ? LIFECYCLE_ACTIONS.get(action) : undefined;
      return lifecycle ? parsePullRequest(body, deliveryId, lifecycle) : unhandled();
    }
  }
}
