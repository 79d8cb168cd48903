import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  commentHook,
  pullRequestHook,
  type HookPullRequest,
} from '../../../test/support/fake-bitbucket-server/webhooks.js';
import { BITBUCKET_SERVER_USERNAMES, isBitbucketServerFullName } from './names.js';
import { createBitbucketServerWebhookHandler } from './webhook.js';

const SECRET = 'hook-secret';
const PR: HookPullRequest = {
  repo: 'ACME/widgets',
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
  return { headers: { 'x-event-key': eventKey, 'x-request-id': 'r-1', 'x-hub-signature': sig }, rawBody };
}

describe('Bitbucket Data Center webhooks', () => {
  const handler = createBitbucketServerWebhookHandler(['old', SECRET]);
  const parse = (key: string, payload: Record<string, unknown>) =>
    handler.parse(request(key, payload), payload);

  it('verifies X-Hub-Signature sha256= with any active secret, and nothing else', () => {
    const payload = pullRequestHook(PR, 'alice');
    expect(handler.verify(request('pr:opened', payload))).toBe(true);
    expect(handler.verify(request('pr:opened', payload, `sha256=${'0'.repeat(64)}`))).toBe(false);
    const bare = createHmac('sha256', SECRET).update(JSON.stringify(payload)).digest('hex');
    expect(handler.verify(request('pr:opened', payload, bare))).toBe(false);
    expect(handler.verify({ headers: {}, rawBody: Buffer.from('{}') })).toBe(false);
    expect(handler.deliveryId(request('pr:opened', payload))).toBe('r-1');
  });

  it('parses a general comment and an inline one; the reply goes under the comment itself', () => {
    const plain = parse('pr:comment:added', commentHook(PR, { id: 5, text: '@rb hi', author: 'alice' }));
    expect(plain).toEqual({
      kind: 'event',
      comment: {
        platform: 'bitbucket-server',
        repoFullName: 'ACME/widgets',
        prNumber: 7,
        prBranch: 'feature/x',
        baseBranch: 'main',
        headSha: 'a'.repeat(40),
        prTitle: 'T',
        commentId: '5',
        commentType: 'issue_comment',
        authorUsername: 'alice',
        body: '@rb hi',
        discussionId: '5',
        cloneUrl: '',
        deliveryId: 'r-1',
        eventType: 'comment',
      },
    });
    const inline = parse(
      'pr:comment:added',
      commentHook(PR, {
        id: 6,
        text: 'x',
        author: 'alice',
        parentId: 5,
        anchor: { path: 'src/a.ts', line: 4, lineType: 'ADDED', fileType: 'TO' },
      }),
    );
    expect(inline).toMatchObject({
      comment: {
        commentType: 'review_comment',
        filePath: 'src/a.ts',
        line: 4,
        side: 'RIGHT',
        discussionId: '6',
      },
    });
  });

  it('an inline comment on the old file (fileType FROM, e.g. a removed line) is on the LEFT side', () => {
    const inline = (id: number, anchor: { line: number; lineType: string; fileType: string }) =>
      parse(
        'pr:comment:added',
        commentHook(PR, {
          id,
          text: '@rb why was this removed?',
          author: 'alice',
          anchor: { path: 'src/a.ts', ...anchor },
        }),
      );
    const place = (result: ReturnType<typeof parse>) =>
      result.kind === 'event'
        ? { filePath: result.comment.filePath, line: result.comment.line, side: result.comment.side }
        : result;
    expect(place(inline(8, { line: 3, lineType: 'REMOVED', fileType: 'FROM' }))).toEqual({
      filePath: 'src/a.ts',
      line: 3,
      side: 'LEFT',
    });
    // A context line can be commented on either side; FROM numbers it in the old file.
    expect(place(inline(9, { line: 12, lineType: 'CONTEXT', fileType: 'FROM' }))).toEqual({
      filePath: 'src/a.ts',
      line: 12,
      side: 'LEFT',
    });
    expect(place(inline(10, { line: 12, lineType: 'CONTEXT', fileType: 'TO' }))).toEqual({
      filePath: 'src/a.ts',
      line: 12,
      side: 'RIGHT',
    });
    expect(place(inline(11, { line: 4, lineType: 'ADDED', fileType: 'TO' }))).toEqual({
      filePath: 'src/a.ts',
      line: 4,
      side: 'RIGHT',
    });
  });

  it('pr:opened and pr:from_ref_updated are lifecycle triggers; other events are ignored', () => {
    expect(parse('pr:opened', pullRequestHook(PR, 'alice'))).toMatchObject({
      comment: { commentType: 'lifecycle', eventType: 'pr_opened', headSha: 'a'.repeat(40) },
    });
    expect(parse('pr:from_ref_updated', pullRequestHook(PR, 'alice', 'pr:from_ref_updated'))).toMatchObject({
      comment: { commentType: 'lifecycle', eventType: 'pr_push' },
    });
    expect(parse('pr:merged', pullRequestHook(PR, 'alice'))).toMatchObject({ kind: 'ignored' });
    expect(handler.parse({ headers: {}, rawBody: Buffer.from('{}') }, {})).toMatchObject({
      kind: 'ignored',
      reason: 'missing X-Event-Key header',
    });
  });

  it.each([
    ['project key', { ...PR, repo: '1BAD/widgets' }, /project.key is invalid/],
    ['slug', { ...PR, repo: 'ACME/..' }, /repository.slug is invalid/],
    ['branch', { ...PR, headBranch: 'bad..branch' }, /fromRef.displayId is invalid/],
    ['hash', { ...PR, headSha: 'a'.repeat(12) }, /fromRef.latestCommit is invalid/],
    ['id', { ...PR, id: 0 }, /pullRequest.id is invalid/],
  ])('ignores a payload with a bad %s at the edge', (_what, pr, reason) => {
    const result = parse('pr:opened', pullRequestHook(pr, 'alice'));
    expect(result.kind).toBe('ignored');
    expect(result.kind === 'ignored' && result.reason).toMatch(reason);
  });

  it('names: KEY/slug, and a mention ends where a username character does not follow', () => {
    expect(isBitbucketServerFullName('ACME/widgets.js')).toBe(true);
    expect(isBitbucketServerFullName('~alice/repo')).toBe(false);
    expect(isBitbucketServerFullName('ACME/x.git')).toBe(false);
    const g = BITBUCKET_SERVER_USERNAMES;
    expect(g.isUsername('rb-reviewer')).toBe(true);
    expect(g.isUsername('a/b')).toBe(false);
    expect(g.endsMention('@rb please', 3)).toBe(true);
    expect(g.endsMention('@rb.', 3)).toBe(true);
    expect(g.endsMention('@rb.x', 3)).toBe(false);
    expect(g.endsMention('@rb_x', 3)).toBe(false);
    expect(g.canStartMention('mail@rb', 4)).toBe(false);
  });
});
