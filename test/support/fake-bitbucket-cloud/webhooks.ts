/**
 * Bitbucket Cloud webhook deliveries for tests, as Bitbucket sends them (Atlassian, "Event
 * payloads", "Manage webhooks"): JSON body; headers `X-Event-Key`, `X-Request-UUID`,
 * `X-Hook-UUID`, `X-Attempt-Number`, and with a secret `X-Hub-Signature: sha256=<hex HMAC>`.
 * Commit hashes in payloads have 12 characters.
 */
import { createHmac, randomUUID } from 'node:crypto';

/** A pull request as a payload describes it. */
export interface HookPullRequest {
  repo: string;
  id: number;
  title: string;
  headBranch: string;
  headSha: string;
  baseBranch: string;
  baseSha: string;
}

/** An account: nickname `nickname` (not unique), id `accountId` (default `557058:<nickname>`). */
function account(nickname: string, accountId = `557058:${nickname}`) {
  return { type: 'user', nickname, display_name: nickname, account_id: accountId };
}

function pullrequest(pr: HookPullRequest) {
  const end = (branch: string, sha: string) => ({
    branch: { name: branch },
    commit: { type: 'commit', hash: sha.slice(0, 12) },
    repository: { type: 'repository', full_name: pr.repo },
  });
  return {
    type: 'pullrequest',
    id: pr.id,
    title: pr.title,
    state: 'OPEN',
    source: end(pr.headBranch, pr.headSha),
    destination: end(pr.baseBranch, pr.baseSha),
  };
}

/** `pullrequest:created` / `pullrequest:updated`. */
export function pullRequestHook(pr: HookPullRequest, actor: string, actorAccountId?: string) {
  return {
    actor: account(actor, actorAccountId),
    repository: { type: 'repository', full_name: pr.repo },
    pullrequest: pullrequest(pr),
  };
}

/** `pullrequest:comment_created`. */
export function commentHook(
  pr: HookPullRequest,
  comment: {
    id: number;
    raw: string;
    /** The author's nickname; `authorAccountId` its account id (default `557058:<nickname>`). */
    author: string;
    authorAccountId?: string;
    inline?: { path: string; to?: number; from?: number };
    /** The comment this one answers (`parent.id`). */
    parentId?: number;
  },
) {
  return {
    ...pullRequestHook(pr, comment.author, comment.authorAccountId),
    comment: {
      type: 'pullrequest_comment',
      id: comment.id,
      content: { raw: comment.raw, markup: 'markdown', html: '' },
      user: account(comment.author, comment.authorAccountId),
      ...(comment.inline ? { inline: comment.inline } : {}),
      ...(comment.parentId !== undefined
        ? { parent: { type: 'pullrequest_comment', id: comment.parentId } }
        : {}),
    },
  };
}

/** A webhook answer. */
export interface HookAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** Posts `payload` as event `eventKey`, signed with `secret`; `headers` override after signing. */
export async function sendBitbucketWebhook(
  url: string,
  eventKey: string,
  payload: unknown,
  options: { secret: string; deliveryId?: string; headers?: Record<string, string> },
): Promise<HookAnswer> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Bitbucket-Webhooks/2.0',
    'x-event-key': eventKey,
    'x-request-uuid': options.deliveryId ?? randomUUID(),
    'x-hook-uuid': '{7a6c7d49-2f7e-4d35-9a59-000000000001}',
    'x-attempt-number': '1',
    'x-hub-signature': `sha256=${createHmac('sha256', options.secret).update(body).digest('hex')}`,
    ...options.headers,
  };
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
