/**
 * Azure DevOps service-hook payload → ReviewComment (CONTRACT §6–§7). Pure; never throws; what it
 * does not handle comes back as `{ kind: 'ignored', reason }`. The event is the body's `eventType`:
 * - `ms.vss-code.git-pullrequest-comment-event` → a comment (`issue_comment`; the payload names no
 *   file), `discussionId` = the thread (from the comment's `_links.threads.href`, which ends in
 *   `/threads/{id}`) so a reply lands in that thread. A mention picked from Azure DevOps' list is
 *   stored as `@<GUID>`: the bot's own id (`botIds`) is rewritten to its unique name first, so
 *   the mention rule sees `@<unique name>`;
 * - `git.pullrequest.created` → lifecycle `pr_opened`; `git.pullrequest.updated` on an active pull
 *   request → lifecycle `pr_push` (the subscription filters on "Source branch updated"; another
 *   update on a head the bot already reviewed runs nothing, §13).
 */
import type { EventType, ReviewComment, WebhookParseResult } from '../types.js';
import { checkPayload, ignored } from '../webhook-parse-helpers.js';
import { AzureCommentEvent, AzurePullRequestEvent } from './webhook-schema.js';

const LIFECYCLE: ReadonlyMap<string, EventType> = new Map<string, EventType>([
  ['git.pullrequest.created', 'pr_opened'],
  ['git.pullrequest.updated', 'pr_push'],
]);

type PullRequest = ReturnType<typeof AzurePullRequestEvent.parse>['resource'];

function common(pr: PullRequest, deliveryId: string) {
  return {
    platform: 'azure-devops' as const,
    repoFullName: `${pr.repository.project.name}/${pr.repository.name}`,
    prNumber: pr.pullRequestId,
    prTitle: pr.title ?? '',
    prBranch: pr.sourceRefName.slice('refs/heads/'.length),
    baseBranch: pr.targetRefName.slice('refs/heads/'.length),
    headSha: pr.lastMergeSourceCommit?.commitId ?? '',
    cloneUrl: '',
    deliveryId,
  };
}

/** The bot identity a mention by id is rewritten to. */
export interface BotIdentity {
  id: string;
  uniqueName: string;
}

/** `body` with `@<id>` of `bot` (any case) written as `@<unique name>`. */
export function withNamedMentions(body: string, bot: BotIdentity | undefined): string {
  if (!bot?.id || !bot.uniqueName) return body;
  const id = bot.id.toLowerCase();
  return body.replace(/@<([0-9a-fA-F-]{36})>/g, (all, guid: string) =>
    guid.toLowerCase() === id ? `@${bot.uniqueName}` : all,
  );
}

/** Parses one delivery (`body` = the JSON object; its `id` is the delivery id). */
export function parseAzureWebhook(body: Record<string, unknown>, bot?: BotIdentity): WebhookParseResult {
  const eventType = typeof body.eventType === 'string' ? body.eventType : undefined;
  if (!eventType) return ignored('missing eventType');
  if (eventType === 'ms.vss-code.git-pullrequest-comment-event') {
    const checked = checkPayload(AzureCommentEvent, eventType, body);
    if (!checked.ok) return checked.result;
    const { comment, pullRequest } = checked.data.resource;
    if (comment.commentType && comment.commentType !== 'text') return ignored('not a text comment');
    const thread = /\/threads\/([1-9][0-9]{0,9})$/.exec(comment._links?.threads?.href ?? '')?.[1];
    const result: ReviewComment = {
      ...common(pullRequest, checked.data.id),
      commentId: String(comment.id),
      commentType: 'issue_comment',
      authorUsername: comment.author.uniqueName ?? '',
      body: withNamedMentions(comment.content ?? '', bot),
      ...(thread ? { discussionId: thread } : {}),
      eventType: 'comment',
    };
    return { kind: 'event', comment: result };
  }
  const lifecycle = LIFECYCLE.get(eventType);
  if (!lifecycle) return ignored(`event "${eventType}" not handled`);
  const checked = checkPayload(AzurePullRequestEvent, eventType, body);
  if (!checked.ok) return checked.result;
  const pr = checked.data.resource;
  if (pr.status && pr.status !== 'active') return ignored(`pull request is ${pr.status}`);
  return {
    kind: 'event',
    comment: {
      ...common(pr, checked.data.id),
      commentId: '',
      commentType: 'lifecycle',
      authorUsername: pr.createdBy?.uniqueName ?? '',
      body: '',
      eventType: lifecycle,
    },
  };
}
