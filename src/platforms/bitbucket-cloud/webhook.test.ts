import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  commentHook,
  pullRequestHook,
  type HookPullRequest,
} from '../../../test/support/fake-bitbucket-cloud/webhooks.js';
import { BITBUCKET_USERNAMES } from './names.js';
import { createBitbucketWebhookHandler } from './webhook.js';

const SECRET = 'hook-secret';
const PR: HookPullRequest = {
  repo: 'acme/widgets',
  id: 7,
  title: 'T',
  headBranch: 'feature/x',
  headSha: 'a'.repeat(40),
  baseBranch: 'main',
  baseSha: 'b'.repeat(40),
};

function request(eventKey: string, payload: unknown, signature?: string) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const sig = signature ?? `sha256=${createHmac('sha256', SECRET).update(rawBody).digest('hex')}`;
  return {
    headers: { 'x-event-key': eventKey, 'x-request-uuid': '{u-1}', 'x-hub-signature': sig },
    rawBody,
  };
}

describe('Bitbucket Cloud webhooks', () => {
  const handler = createBitbucketWebhookHandler(['old', SECRET]);
  const parse = (key: string, payload: Record<string, unknown>) =>
    handler.parse(request(key, payload), payload);

  it('verifies X-Hub-Signature sha256= with any active secret, and nothing else', () => {
    const payload = pullRequestHook(PR, 'alice');
    expect(handler.verify(request('pullrequest:created', payload))).toBe(true);
    expect(handler.verify(request('pullrequest:created', payload, `sha256=${'0'.repeat(64)}`))).toBe(false);
    const bare = createHmac('sha256', SECRET).update(JSON.stringify(payload)).digest('hex');
    expect(handler.verify(request('pullrequest:created', payload, bare))).toBe(false);
    expect(handler.deliveryId(request('pullrequest:created', payload))).toBe('{u-1}');
  });

  it('parses a conversation comment and an inline one (thread = its top comment)', () => {
    const plain = parse(
      'pullrequest:comment_created',
      commentHook(PR, { id: 5, raw: '@rb hi', author: 'alice' }),
    );
    expect(plain).toMatchObject({
      kind: 'event',
      comment: {
        platform: 'bitbucket',
        repoFullName: 'acme/widgets',
        prNumber: 7,
        prBranch: 'feature/x',
        baseBranch: 'main',
        headSha: '',
        commentId: '5',
        commentType: 'issue_comment',
        authorUsername: '{557058:alice}',
        body: '@rb hi',
        eventType: 'comment',
      },
    });
    const inline = parse(
      'pullrequest:comment_created',
      commentHook(PR, { id: 6, raw: 'x', author: 'alice', inline: { path: 'src/a.ts', from: 4 } }),
    );
    // Only `from` set: a comment on a removed line, numbered in the old file.
    expect(inline).toMatchObject({
      comment: {
        commentType: 'review_comment',
        filePath: 'src/a.ts',
        line: 4,
        side: 'LEFT',
        discussionId: '6',
      },
    });
    const added = parse(
      'pullrequest:comment_created',
      commentHook(PR, { id: 9, raw: 'x', author: 'alice', inline: { path: 'src/a.ts', from: 3, to: 5 } }),
    );
    expect(added).toMatchObject({ comment: { line: 5, side: 'RIGHT' } });
  });

  it('names an author by account id, never by nickname (nicknames are not unique)', () => {
    const impostor = parse(
      'pullrequest:comment_created',
      commentHook(PR, { id: 7, raw: '@rb hi', author: 'alice', authorAccountId: '557058:mallory' }),
    );
    expect(impostor).toMatchObject({ comment: { authorUsername: '{557058:mallory}', authorName: 'alice' } });
    const payload = commentHook(PR, { id: 8, raw: '@rb hi', author: 'alice' });
    const anonymous = {
      ...payload,
      actor: { nickname: 'alice' },
      comment: { ...payload.comment, user: { nickname: 'alice', display_name: 'Alice' } },
    };
    expect(parse('pullrequest:comment_created', anonymous)).toMatchObject({
      comment: { authorUsername: '' },
    });
    const multiline = {
      ...payload,
      comment: {
        ...payload.comment,
        user: { account_id: '557058:x', display_name: 'Eve\n\nSigned-off-by: x' },
      },
    };
    expect(parse('pullrequest:comment_created', multiline)).toMatchObject({
      comment: { authorUsername: '{557058:x}', authorName: 'Eve Signed-off-by: x' },
    });
    expect(parse('pullrequest:updated', pullRequestHook(PR, 'alice'))).toMatchObject({
      comment: { authorUsername: '{557058:alice}' },
    });
  });

  it('pullrequest:created/updated are lifecycle triggers; other events are ignored', () => {
    expect(parse('pullrequest:created', pullRequestHook(PR, 'alice'))).toMatchObject({
      comment: { commentType: 'lifecycle', eventType: 'pr_opened' },
    });
    expect(parse('pullrequest:updated', pullRequestHook(PR, 'alice'))).toMatchObject({
      comment: { commentType: 'lifecycle', eventType: 'pr_push' },
    });
    expect(parse('pullrequest:fulfilled', pullRequestHook(PR, 'alice'))).toMatchObject({ kind: 'ignored' });
  });

  it.each([
    ['workspace/slug', { ...PR, repo: 'acme/../etc' }, /repository.full_name is invalid/],
    ['branch', { ...PR, headBranch: 'bad..branch' }, /branch.name is invalid/],
    ['hash', { ...PR, headSha: 'zz'.repeat(20) }, /commit.hash is invalid/],
    ['id', { ...PR, id: 0 }, /pullrequest.id is invalid/],
  ])('ignores a payload with a bad %s at the edge', (_what, pr, reason) => {
    const result = parse('pullrequest:created', pullRequestHook(pr, 'alice'));
    expect(result.kind).toBe('ignored');
    expect(result.kind === 'ignored' && result.reason).toMatch(reason);
  });

  it('a mention is @nickname or @{account id}, as content.raw holds it', () => {
    expect(BITBUCKET_USERNAMES.isUsername('{557058:6f1c0e5a-1b2c-4d3e-9f00-123456789abc}')).toBe(true);
    expect(BITBUCKET_USERNAMES.isUsername('rb-reviewer')).toBe(true);
    expect(BITBUCKET_USERNAMES.isUsername('a/b')).toBe(false);
  });
});
