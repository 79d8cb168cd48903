/**
 * Azure DevOps service-hook deliveries for tests, shaped as Microsoft's samples (Microsoft Learn,
 * "Service hooks events": `id`, `eventType`, `publisherId: "tfs"`, `message`, `resource`,
 * `resourceVersion`, `resourceContainers`, `createdDate`; a pull request event's `resource` is the
 * `GitPullRequest`, a comment event's `resource` is `{comment, pullRequest}` with the comment's
 * `_links.threads.href` naming its thread). Sent as a Web Hooks subscription with Basic
 * authentication sends them: JSON body, `Authorization: Basic base64(user:password)`.
 */
import { randomUUID } from 'node:crypto';

/** The answer of the receiving server. */
export interface HookAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** A pull request as its `resource` (what `FakeAzureDevOps.pullRequestJson` returns). */
export type PullRequestResource = Record<string, unknown> & { url?: string };

function envelope(eventType: string, resource: unknown, text: string, id: string = randomUUID()) {
  return {
    subscriptionId: '00000000-0000-4000-8000-00000000aaaa',
    notificationId: 1,
    id,
    eventType,
    publisherId: 'tfs',
    message: { text, html: text, markdown: text },
    detailedMessage: { text, html: text, markdown: text },
    resource,
    resourceVersion: eventType.startsWith('ms.vss-code') ? '2.0' : '1.0',
    resourceContainers: {
      collection: { id: '00000000-0000-4000-8000-0000000000c0' },
      account: { id: '00000000-0000-4000-8000-0000000000a0' },
      project: { id: '00000000-0000-4000-8000-000000000001' },
    },
    createdDate: new Date().toISOString(),
  };
}

/** `git.pullrequest.created` / `git.pullrequest.updated` for `pullRequest`. */
export function pullRequestEvent(
  eventType: 'git.pullrequest.created' | 'git.pullrequest.updated',
  pullRequest: PullRequestResource,
  id?: string,
) {
  const verb = eventType.endsWith('created') ? 'created' : 'updated the source branch of';
  return envelope(
    eventType,
    pullRequest,
    `Alice ${verb} pull request ${String(pullRequest.pullRequestId)}`,
    id,
  );
}

/** `ms.vss-code.git-pullrequest-comment-event` for comment `commentId` of thread `threadId`. */
export function commentEvent(
  pullRequest: PullRequestResource,
  threadId: number,
  comment: { id: number; content: string; author: { id: string; uniqueName: string; displayName?: string } },
  id?: string,
) {
  const threads = `${String(pullRequest.url)}/threads/${threadId}`;
  return envelope(
    'ms.vss-code.git-pullrequest-comment-event',
    {
      comment: {
        id: comment.id,
        parentCommentId: 0,
        author: { displayName: comment.author.uniqueName, ...comment.author },
        content: comment.content,
        publishedDate: new Date().toISOString(),
        lastUpdatedDate: new Date().toISOString(),
        lastContentUpdatedDate: new Date().toISOString(),
        commentType: 'text',
        _links: {
          self: { href: `${threads}/comments/${comment.id}` },
          repository: { href: String(pullRequest.url).replace(/\/pullRequests\/\d+$/, '') },
          threads: { href: threads },
        },
      },
      pullRequest,
    },
    `${comment.author.uniqueName} has edited a pull request comment`,
    id,
  );
}

/** Posts `payload` to `url` as a service hook with Basic `user:password`. */
export async function sendServiceHook(
  url: string,
  payload: unknown,
  auth: { user: string; password: string },
): Promise<HookAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      authorization: `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`,
    },
    body: JSON.stringify(payload),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
