/**
 * GitHub webhook payload → ReviewComment (CONTRACT §6–§7). Pure: a function of the event name, the
 * delivery id and the JSON-parsed body. Events, actions and payloads it does not handle come back as
 * `{ kind: 'ignored', reason }`; it never throws.
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import {
  IssueCommentEvent,
  PullRequestEvent,
  ReviewCommentEvent,
  ReviewEvent,
  type PullRequest,
} from './webhook-schema.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';

/** `pull_request` actions that are lifecycle triggers, and the eventType each becomes. */
const LIFECYCLE_ACTIONS: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['opened', 'pr_opened'],
  ['synchronize', 'pr_push'],
  ['reopened', 'pr_reopened'],
  ['ready_for_review', 'pr_ready_for_review'],
]);

/** Branch, SHAs and clone URL of a pull request object (clone URL of the head repository). */
function pullRequestFields(pr: PullRequest) {
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

function parseIssueComment(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(IssueCommentEvent, 'issue_comment', body);
  if (!checked.ok) return checked.result;
  const { issue, comment, repository, sender } = checked.data;
  if (!issue.pull_request) return ignored('not a pull request');
  return {
    kind: 'event',
    comment: {
      platform: 'github',
      repoFullName: repository.full_name,
      prNumber: issue.number,
      // An issue comment does not carry the branches or SHAs; jobs fetch the pull request.
      prBranch: '',
      baseBranch: '',
      headSha: '',
      prTitle: issue.title ?? '',
      commentId: comment.id,
      commentType: 'issue_comment',
      authorUsername: comment.user?.login ?? sender?.login ?? '',
      body: comment.body ?? '',
      cloneUrl: '',
      deliveryId,
      eventType: 'comment',
    },
  };
}

function parseReviewComment(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(ReviewCommentEvent, 'pull_request_review_comment', body);
  if (!checked.ok) return checked.result;
  const { comment, pull_request: pr, repository, sender } = checked.data;
  const line = comment.line ?? comment.original_line ?? undefined;
  const side = comment.side === 'LEFT' || comment.side === 'RIGHT' ? comment.side : undefined;
  const result: ReviewComment = {
    platform: 'github',
    repoFullName: repository.full_name,
    ...pullRequestFields(pr),
    commentId: comment.id,
    commentType: 'review_comment',
    authorUsername: comment.user?.login ?? sender?.login ?? '',
    body: comment.body ?? '',
    filePath: comment.path,
    ...(line !== undefined ? { line } : {}),
    ...(line !== undefined && side ? { side } : {}),
    ...(comment.diff_hunk ? { diffHunk: comment.diff_hunk } : {}),
    // Replies on GitHub attach to the thread's root comment, never to a reply.
    discussionId: comment.in_reply_to_id ?? comment.id,
    deliveryId,
    eventType: 'comment',
  };
  return { kind: 'event', comment: result };
}

function parseReview(body: Record<string, unknown>, deliveryId: string): WebhookParseResult {
  const checked = checkPayload(ReviewEvent, 'pull_request_review', body);
  if (!checked.ok) return checked.result;
  const { review, pull_request: pr, repository, sender } = checked.data;
  const text = review.body ?? '';
  if (text.trim() === '') return ignored('pull_request_review has no body');
  return {
    kind: 'event',
    comment: {
      platform: 'github',
      repoFullName: repository.full_name,
      ...pullRequestFields(pr),
      commentId: review.id,
      commentType: 'review',
      authorUsername: review.user?.login ?? sender?.login ?? '',
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
  const checked = checkPayload(PullRequestEvent, 'pull_request', body);
  if (!checked.ok) return checked.result;
  const { pull_request: pr, repository, sender } = checked.data;
  return {
    kind: 'event',
    comment: {
      platform: 'github',
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
 * Parses one GitHub webhook delivery (`event` = the `X-GitHub-Event` header, `deliveryId` = the
 * `X-GitHub-Delivery` header or `''`) into a ReviewComment:
 * - `issue_comment` `created` on a pull request → `issue_comment` (no branch/SHA/clone URL: empty);
 * - `pull_request_review_comment` `created` → `review_comment` with `filePath`, `line` (`line ??
 *   original_line`) and its `side` (`LEFT` = old file), `diffHunk`, `discussionId` = the thread's root comment id;
 * - `pull_request_review` `submitted` with a non-blank body → `review`;
 * - `pull_request` `opened`/`synchronize`/`reopened`/`ready_for_review` → `lifecycle` with eventType
 *   `pr_opened`/`pr_push`/`pr_reopened`/`pr_ready_for_review` (drafts included), author = sender.
 * Everything else (including `ping`) is ignored with a reason naming the event and action.
 */
export function parseGitHubWebhook(
  event: string | undefined,
  deliveryId: string,
  body: Record<string, unknown>,
): WebhookParseResult {
  if (!event) return ignored('missing X-GitHub-Event header');
  if (event === 'ping') return ignored('ping');
  const action = typeof body.action === 'string' ? body.action : undefined;
  const unhandled = () => ignored(`${event} action "${action ?? '(none)'}" not handled`);
  switch (event) {
    case 'issue_comment':
      return action === 'created' ? parseIssueComment(body, deliveryId) : unhandled();
    case 'pull_request_review_comment':
      return action === 'created' ? parseReviewComment(body, deliveryId) : unhandled();
    case 'pull_request_review':
      return action === 'submitted' ? parseReview(body, deliveryId) : unhandled();
    case 'pull_request': {
      const eventType = action !== undefined ? LIFECYCLE_ACTIONS.get(action) : undefined;
      return eventType ? parsePullRequest(body, deliveryId, eventType) : unhandled();
    }
    default:
      return ignored(`event "${event}" not handled`);
  }
}
