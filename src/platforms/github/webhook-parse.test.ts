import { describe, expect, it } from 'vitest';
import { createGitHubWebhookHandler } from './webhook.js';
import {
  githubExample,
  issueCommentOnPullRequest,
  signedGitHubRequest,
  type ExamplePayload,
} from './webhook-examples.test-helper.js';

const SECRET = 'It-is-a-Secret-to-Everybody';
const handler = createGitHubWebhookHandler([SECRET]);

/** Signs `payload` as GitHub does, verifies, then parses it, the way the server does. */
function deliver(event: string, payload: ExamplePayload, deliveryId = 'd-1') {
  const request = signedGitHubRequest(payload, { secret: SECRET, event, deliveryId });
  expect(handler.verify(request)).toBe(true);
  return handler.parse(request, JSON.parse(request.rawBody.toString()) as Record<string, unknown>);
}

describe('GitHub webhook parsing', () => {
  it('turns an issue comment on a pull request into an issue_comment', () => {
    const payload = issueCommentOnPullRequest();
    payload.comment.body = '@review-bot please look';
    expect(deliver('issue_comment', payload, 'abc')).toEqual({
      kind: 'event',
      comment: {
        platform: 'github',
        repoFullName: 'Codertocat/Hello-World',
        prNumber: 1,
        prBranch: '',
        baseBranch: '',
        headSha: '',
        prTitle: 'Spelling error in the README file',
        commentId: '492700400',
        commentType: 'issue_comment',
        authorUsername: 'Codertocat',
        body: '@review-bot please look',
        cloneUrl: '',
        deliveryId: 'abc',
        eventType: 'comment',
      },
    });
  });

  it('ignores a comment on a plain issue', () => {
    expect(deliver('issue_comment', githubExample('issue_comment', 'created'))).toEqual({
      kind: 'ignored',
      reason: 'not a pull request',
    });
  });

  it('turns a review comment into a review_comment in its own thread', () => {
    const payload = githubExample('pull_request_review_comment', 'created', (p) => p.comment.line === 265);
    const result = deliver('pull_request_review_comment', payload);
    expect(result).toEqual({
      kind: 'event',
      comment: expect.objectContaining({
        platform: 'github',
        repoFullName: payload.repository.full_name,
        prNumber: payload.pull_request.number,
        prBranch: payload.pull_request.head.ref,
        baseBranch: payload.pull_request.base.ref,
        headSha: payload.pull_request.head.sha,
        prTitle: payload.pull_request.title,
        commentId: String(payload.comment.id),
        commentType: 'review_comment',
        authorUsername: payload.comment.user.login,
        body: payload.comment.body,
        filePath: payload.comment.path,
        line: 265,
        side: 'RIGHT',
        diffHunk: payload.comment.diff_hunk,
        discussionId: String(payload.comment.id),
        cloneUrl: payload.pull_request.head.repo.clone_url,
        eventType: 'comment',
      }),
    });
  });

  it('points a reply at the root comment of its thread and falls back to original_line', () => {
    const payload = githubExample('pull_request_review_comment', 'created', (p) => p.comment.line === 265);
    payload.comment.in_reply_to_id = 1111;
    payload.comment.line = null;
    payload.comment.original_line = 12;
    payload.pull_request.head.repo = null; // deleted fork
    const result = deliver('pull_request_review_comment', payload);
    expect(result.kind === 'event' && result.comment).toMatchObject({
      discussionId: '1111',
      line: 12,
      cloneUrl: payload.pull_request.base.repo.clone_url,
    });
  });

  it('keeps the old-file side of a comment on a removed line', () => {
    const payload = githubExample('pull_request_review_comment', 'created', (p) => p.comment.line === 265);
    // GitHub numbers a LEFT comment's line (and original_line) in the base file.
    Object.assign(payload.comment, { side: 'LEFT', line: 7, original_line: 7 });
    const result = deliver('pull_request_review_comment', payload);
    expect(result.kind === 'event' && result.comment).toMatchObject({
      filePath: payload.comment.path,
      line: 7,
      side: 'LEFT',
    });
  });

  it('leaves line out when GitHub reports none (position-only comment)', () => {
    const payload = githubExample(
      'pull_request_review_comment',
      'created',
      (p) => p.comment.line === undefined,
    );
    const result = deliver('pull_request_review_comment', payload);
    expect(result.kind).toBe('event');
    expect(result.kind === 'event' && 'line' in result.comment).toBe(false);
    expect(result.kind === 'event' && 'side' in result.comment).toBe(false);
  });

  it('turns a submitted review with a body into a review', () => {
    const payload = githubExample('pull_request_review', 'submitted');
    payload.review.body = '@review-bot summarize';
    const result = deliver('pull_request_review', payload);
    expect(result.kind === 'event' && result.comment).toMatchObject({
      commentType: 'review',
      commentId: String(payload.review.id),
      body: '@review-bot summarize',
      authorUsername: 'Codertocat',
      prNumber: 2,
      prBranch: 'changes',
      eventType: 'comment',
    });
  });

  it.each([null, '', '   '])('ignores a submitted review with body %j', (body) => {
    const payload = githubExample('pull_request_review', 'submitted');
    payload.review.body = body;
    expect(deliver('pull_request_review', payload)).toEqual({
      kind: 'ignored',
      reason: 'pull_request_review has no body',
    });
  });

  it.each([
    ['opened', 'pr_opened'],
    ['synchronize', 'pr_push'],
    ['reopened', 'pr_reopened'],
    ['ready_for_review', 'pr_ready_for_review'],
  ])('turns pull_request %s into a %s lifecycle event', (action, eventType) => {
    const payload = githubExample('pull_request', action);
    payload.sender.login = 'pusher';
    const result = deliver('pull_request', payload, `d-${action}`);
    expect(result).toEqual({
      kind: 'event',
      comment: {
        platform: 'github',
        repoFullName: 'Codertocat/Hello-World',
        prNumber: 2,
        prBranch: 'changes',
        baseBranch: 'master',
        headSha: payload.pull_request.head.sha,
        prTitle: payload.pull_request.title,
        commentId: '',
        commentType: 'lifecycle',
        authorUsername: 'pusher',
        body: '',
        cloneUrl: 'https://github.com/Codertocat/Hello-World.git',
        deliveryId: `d-${action}`,
        eventType,
      },
    });
  });

  it('still reports a draft pull request opened as pr_opened', () => {
    const payload = githubExample('pull_request', 'opened');
    payload.pull_request.draft = true;
    const result = deliver('pull_request', payload);
    expect(result.kind === 'event' && result.comment.eventType).toBe('pr_opened');
  });

  it.each([
    ['ping', githubExample('ping'), 'ping'],
    ['issue_comment', githubExample('issue_comment', 'edited'), 'issue_comment action "edited" not handled'],
    [
      'issue_comment',
      githubExample('issue_comment', 'deleted'),
      'issue_comment action "deleted" not handled',
    ],
    [
      'pull_request_review_comment',
      githubExample('pull_request_review_comment', 'edited'),
      'pull_request_review_comment action "edited" not handled',
    ],
    [
      'pull_request_review',
      githubExample('pull_request_review', 'dismissed'),
      'pull_request_review action "dismissed" not handled',
    ],
    ['pull_request', githubExample('pull_request', 'closed'), 'pull_request action "closed" not handled'],
    ['pull_request', githubExample('pull_request', 'labeled'), 'pull_request action "labeled" not handled'],
    [
      'pull_request',
      { ...githubExample('pull_request', 'opened'), action: 'constructor' },
      'pull_request action "constructor" not handled',
    ],
    ['issues', githubExample('issues', 'opened'), 'event "issues" not handled'],
    ['push', githubExample('push'), 'event "push" not handled'],
  ])('ignores %s (%#)', (event, payload, reason) => {
    expect(deliver(event, payload)).toEqual({ kind: 'ignored', reason });
  });

  it.each([
    ['issue_comment', { action: 'created' }, 'malformed issue_comment payload: issue is missing or invalid'],
    [
      'issue_comment',
      (() => {
        const p = issueCommentOnPullRequest();
        delete p.issue.number;
        return p;
      })(),
      'malformed issue_comment payload: issue.number is missing or invalid',
    ],
    [
      'pull_request_review_comment',
      (() => {
        const p = githubExample('pull_request_review_comment', 'created');
        p.comment.path = 42;
        return p;
      })(),
      'malformed pull_request_review_comment payload: comment.path is missing or invalid',
    ],
    [
      'pull_request',
      (() => {
        const p = githubExample('pull_request', 'opened');
        delete p.sender;
        return p;
      })(),
      'malformed pull_request payload: sender is missing or invalid',
    ],
    [
      'pull_request',
      { action: 'synchronize', pull_request: 'x' },
      'malformed pull_request payload: pull_request is missing or invalid',
    ],
  ])('ignores a malformed %s payload with a reason (%#)', (event, payload, reason) => {
    expect(deliver(event, payload)).toEqual({ kind: 'ignored', reason });
  });

  it('ignores a delivery without X-GitHub-Event', () => {
    const request = signedGitHubRequest(issueCommentOnPullRequest(), { secret: SECRET, event: '' });
    expect(handler.parse(request, {})).toEqual({ kind: 'ignored', reason: 'missing X-GitHub-Event header' });
  });
});

describe('GitHub webhook handler: what the parser is given', () => {
  it('passes the trimmed X-GitHub-Event and X-GitHub-Delivery', () => {
    const payload = issueCommentOnPullRequest();
    const request = {
      headers: { 'x-github-event': ' issue_comment ', 'x-github-delivery': ' d-7 ' },
      rawBody: Buffer.from(JSON.stringify(payload)),
    };
    expect(handler.parse(request, payload as unknown as Record<string, unknown>)).toMatchObject({
      kind: 'event',
      comment: { commentType: 'issue_comment', deliveryId: 'd-7' },
    });
  });

  it('ignores a delivery without the X-GitHub-Event header, saying so', () => {
    const payload = issueCommentOnPullRequest();
    const request = { headers: { 'x-github-delivery': 'd-8' }, rawBody: Buffer.alloc(0) };
    expect(handler.parse(request, payload as unknown as Record<string, unknown>)).toEqual({
      kind: 'ignored',
      reason: 'missing X-GitHub-Event header',
    });
  });

  it('parses a delivery without X-GitHub-Delivery, with an empty delivery id', () => {
    const payload = issueCommentOnPullRequest();
    const request = { headers: { 'x-github-event': 'issue_comment' }, rawBody: Buffer.alloc(0) };
    expect(handler.parse(request, payload as unknown as Record<string, unknown>)).toMatchObject({
      kind: 'event',
      comment: { deliveryId: '' },
    });
  });

  it('answers "unreadable payload" instead of throwing when reading the body fails', () => {
    const payload = { ...issueCommentOnPullRequest() } as unknown as Record<string, unknown>;
    Object.defineProperty(payload, 'comment', {
      enumerable: true,
      get() {
        throw new Error('unreadable');
      },
    });
    const request = { headers: { 'x-github-event': 'issue_comment' }, rawBody: Buffer.alloc(0) };
    expect(handler.parse(request, payload)).toEqual({ kind: 'ignored', reason: 'unreadable payload' });
  });
});
