/**
 * Bitbucket Data Center webhook deliveries for tests, as Data Center sends them (Atlassian, "Event
 * payload", "Manage webhooks"): JSON body with `eventKey`, `date`, `actor`, `pullRequest` (and
 * `comment`, `commentParentId` for `pr:comment:added`); headers `X-Event-Key`, `X-Request-Id`, and
 * with a secret `X-Hub-Signature: sha256=<hex HMAC>`. Commit hashes are 40 characters.
 */
import { createHmac, randomUUID } from 'node:crypto';

/** A pull request as a payload describes it. */
export interface HookPullRequest {
  /** `KEY/slug`. */
  repo: string;
  id: number;
  title: string;
  headBranch: string;
  headSha: string;
  baseBranch: string;
  baseSha: string;
}

function user(name: string) {
  return {
    name,
    emailAddress: `${name}@example.com`,
    id: 7,
    displayName: name,
    active: true,
    slug: name.toLowerCase(),
    type: 'NORMAL',
  };
}

function pullRequest(pr: HookPullRequest, author: string) {
  const [key = '', slug = ''] = pr.repo.split('/');
  const repository = {
    slug,
    id: 84,
    name: slug,
    scmId: 'git',
    state: 'AVAILABLE',
    statusMessage: 'Available',
    forkable: true,
    project: { key, id: 84, name: key, public: false, type: 'NORMAL' },
    public: false,
  };
  const ref = (branch: string, sha: string) => ({
    id: `refs/heads/${branch}`,
    displayId: branch,
    latestCommit: sha,
    repository,
  });
  return {
    id: pr.id,
    version: 0,
    title: pr.title,
    state: 'OPEN',
    open: true,
    closed: false,
    createdDate: 1700000000000,
    updatedDate: 1700000000000,
    fromRef: ref(pr.headBranch, pr.headSha),
    toRef: ref(pr.baseBranch, pr.baseSha),
    locked: false,
    author: { user: user(author), role: 'AUTHOR', approved: false, status: 'UNAPPROVED' },
    reviewers: [],
    participants: [],
  };
}

/** `pr:opened` / `pr:from_ref_updated` (the latter with `previousFromHash`). */
export function pullRequestHook(pr: HookPullRequest, actor: string, eventKey = 'pr:opened') {
  return {
    eventKey,
    date: '2026-11-26T10:00:00+0000',
    actor: user(actor),
    pullRequest: pullRequest(pr, 'alice'),
    ...(eventKey === 'pr:from_ref_updated' ? { previousFromHash: pr.baseSha } : {}),
  };
}

/**
 * `pr:comment:added` (`parentId` for a reply; `anchor` for an inline comment, sent with the fields
 * Data Center adds: `srcPath` (= `path` unless given), `fromHash`/`toHash`, `diffType`, `orphaned`).
 */
export function commentHook(
  pr: HookPullRequest,
  comment: {
    id: number;
    text: string;
    author: string;
    parentId?: number;
    anchor?: { path: string; srcPath?: string; line: number; lineType: string; fileType: string };
  },
) {
  const anchor = comment.anchor && {
    fromHash: pr.baseSha,
    toHash: pr.headSha,
    srcPath: comment.anchor.path,
    ...comment.anchor,
    diffType: 'EFFECTIVE',
    orphaned: false,
  };
  return {
    ...pullRequestHook(pr, comment.author, 'pr:comment:added'),
    comment: {
      properties: { repositoryId: 84 },
      id: comment.id,
      version: 0,
      text: comment.text,
      author: user(comment.author),
      createdDate: 1700000000000,
      updatedDate: 1700000000000,
      comments: [],
      tasks: [],
      ...(anchor ? { anchor } : {}),
    },
    ...(comment.parentId !== undefined ? { commentParentId: comment.parentId } : {}),
  };
}

/** A webhook answer. */
export interface HookAnswer {
  status: number;
  json: Record<string, unknown>;
}

/** Posts `payload` as event `eventKey`, signed with `secret`; `headers` override after signing. */
export async function sendBitbucketServerWebhook(
  url: string,
  eventKey: string,
  payload: unknown,
  options: { secret: string; deliveryId?: string; headers?: Record<string, string> },
): Promise<HookAnswer> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Atlassian HttpClient 4.2.1 / Bitbucket-8.19.0 (8019000) / Default',
    'x-event-key': eventKey,
    'x-request-id': options.deliveryId ?? randomUUID(),
    'x-hub-signature': `sha256=${createHmac('sha256', options.secret).update(body).digest('hex')}`,
    ...options.headers,
  };
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
