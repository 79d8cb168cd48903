/**
 * The webhook payload builders speak Gitea's structs: each object in them (`User`, `Repository`,
 * `PullRequest`, `PRBranchInfo`, `Issue`, `Comment`) is valid by the vendored swagger of Gitea 1.22
 * (the API serves the very same `modules/structs`) and holds no key the struct does not declare.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchOperation, validateResponse } from './swagger.js';
import {
  issueCommentHook,
  pullRequestCommentHook,
  pullRequestHook,
  reviewHook,
  type GiteaHookContext,
  type GiteaHookPullRequest,
} from './webhook-payloads.js';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; type?: string };
const spec = JSON.parse(
  readFileSync(new URL('../../fixtures/gitea/swagger.v1.22.json', import.meta.url), 'utf8'),
) as { definitions: Record<string, Schema> };

/** Keys of `value` (recursively) that `schema` does not declare, as paths. */
function undeclared(value: unknown, schema: Schema, where: string): string[] {
  const resolved = schema.$ref ? spec.definitions[schema.$ref.split('/').pop()!]! : schema;
  if (Array.isArray(value))
    return value.flatMap((v, i) => undeclared(v, resolved.items ?? {}, `${where}/${i}`));
  if (value === null || typeof value !== 'object' || !resolved.properties) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const property = resolved.properties![key];
    return property ? undeclared(v, property, `${where}/${key}`) : [`${where}/${key}`];
  });
}

/** Problems of `value` as the 200 answer of `GET <path>` plus its undeclared keys. */
function check(path: string, definition: string, value: unknown): string[] {
  const op = matchOperation('GET', path);
  expect(op, path).toBeDefined();
  return [
    ...validateResponse(op!, 200, value),
    ...undeclared(value, { $ref: `#/definitions/${definition}` }, definition),
  ];
}

const CTX: GiteaHookContext = {
  baseUrl: 'http://gitea.test:3000',
  owner: 'acme',
  repo: 'widgets',
  sender: 'rb.dev',
};
const PR: GiteaHookPullRequest = {
  number: 7,
  headBranch: 'feature',
  headSha: '3f786850e387550fdab836ed7e6dc881de23001b',
  baseBranch: 'main',
  baseSha: '89e6c98d92887913cadf06b2adb97f26cde4849b',
  headRepo: 'bob/widgets',
};

describe("webhook payloads as Gitea's structs", () => {
  it('a pull request event: PullRequest (with a fork head), Repository, User', () => {
    const { payload, names } = pullRequestHook(CTX, PR, 'synchronized');
    expect(names).toEqual({ event: 'pull_request', eventType: 'pull_request_sync' });
    expect(check('/repos/acme/widgets/pulls/7', 'PullRequest', payload.pull_request)).toEqual([]);
    expect(check('/repos/acme/widgets', 'Repository', payload.repository)).toEqual([]);
    expect(check('/user', 'User', payload.sender)).toEqual([]);
    expect(Object.keys(payload).sort()).toEqual([
      'action',
      'commit_id',
      'number',
      'pull_request',
      'repository',
      'requested_reviewer',
      'review',
      'sender',
    ]);
  });

  it('a comment event: Issue, Comment, PullRequest', () => {
    const { payload, names } = pullRequestCommentHook(CTX, PR, { id: 9, body: 'hi' });
    expect(names).toEqual({ event: 'issue_comment', eventType: 'pull_request_comment' });
    expect(check('/repos/acme/widgets/issues/7', 'Issue', payload.issue)).toEqual([]);
    expect(check('/repos/acme/widgets/issues/comments/9', 'Comment', payload.comment)).toEqual([]);
    expect(check('/repos/acme/widgets/pulls/7', 'PullRequest', payload.pull_request)).toEqual([]);
    const issue = issueCommentHook(CTX, 3, { id: 4, body: 'x' }).payload;
    expect(check('/repos/acme/widgets/issues/3', 'Issue', issue.issue)).toEqual([]);
    expect(issue).not.toHaveProperty('pull_request');
  });

  it('a review event: ReviewPayload {type, content} and the reviewer', () => {
    const { payload, names } = reviewHook(CTX, PR, 'looks fine', 'approved');
    expect(names).toEqual({ event: 'pull_request_approved', eventType: 'pull_request_review_approved' });
    expect(payload).toMatchObject({
      action: 'reviewed',
      review: { type: 'pull_request_review_approved', content: 'looks fine' },
    });
    expect(check('/user', 'User', payload.requested_reviewer)).toEqual([]);
  });

  it('the check does find a key Gitea does not send', () => {
    const { payload } = pullRequestHook(CTX, PR, 'opened');
    (payload.sender as Record<string, unknown>).node_id = 'MDQ6VXNlcjE=';
    expect(check('/user', 'User', payload.sender)).toEqual(['User/node_id']);
  });
});
