/**
 * One signed event starts at most one job, whatever delivery ids its copies carry (CONTRACT §5):
 * real GitHub payloads (`@octokit/webhooks-examples`) through the real server and the real GitHub
 * handler, counted at the dispatcher.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  githubExample,
  issueCommentOnPullRequest,
} from '../platforms/github/webhook-examples.test-helper.js';
import type { DispatchOutcome } from './types.js';
import { postWebhook, startHarness, webhookCount, type Harness } from './server.test-helper.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(outcome?: () => DispatchOutcome): Promise<Harness> {
  harness = await startHarness(outcome ? { outcome } : {});
  return harness;
}

function comment(id: number, body = '@review-bot please review'): Record<string, unknown> {
  const payload = issueCommentOnPullRequest();
  payload.comment.id = id;
  payload.comment.body = body;
  return payload;
}

function push(headSha: string, action = 'synchronize'): Record<string, unknown> {
  const payload = githubExample('pull_request', 'opened');
  payload.action = action;
  payload.pull_request.head.sha = headSha;
  return payload;
}

const DUPLICATE = { status: 200, json: { status: 'ignored', reason: 'duplicate event' } };
const HEAD_A = 'a'.repeat(40);
const HEAD_B = 'b'.repeat(40);

describe('the same event under other delivery ids', () => {
  it('a comment signed once and sent with three delivery ids is dispatched once', async () => {
    const h = await start();
    const body = comment(101);
    const answers = [];
    for (const deliveryId of ['id-1', 'id-2', 'id-3'])
      answers.push(await postWebhook(h, body, { event: 'issue_comment', deliveryId }));
    expect(answers).toEqual([{ status: 200, json: { status: 'accepted' } }, DUPLICATE, DUPLICATE]);
    expect(h.calls).toHaveLength(1);
    expect(await webhookCount(h.metrics, 'github', 'duplicate')).toBe(2);
  });

  it('three copies arriving at once are dispatched once', async () => {
    const h = await start();
    const body = comment(102);
    const answers = await Promise.all(
      ['c-1', 'c-2', 'c-3'].map((deliveryId) => postWebhook(h, body, { event: 'issue_comment', deliveryId })),
    );
    expect(
      answers.filter((a) => a.json && (a.json as { status: string }).status === 'accepted'),
    ).toHaveLength(1);
    expect(h.calls).toHaveLength(1);
  });

  it('two different comments are dispatched twice', async () => {
    const h = await start();
    await postWebhook(h, comment(201), { event: 'issue_comment' });
    await postWebhook(h, comment(202), { event: 'issue_comment' });
    expect(h.calls.map((c) => c.comment.commentId)).toEqual(['201', '202']);
  });

  it('a review comment and an issue comment with the same number are different comments', async () => {
    const h = await start();
    const inline = githubExample('pull_request_review_comment', 'created');
    inline.comment.id = 301;
    inline.comment.body = '@review-bot look here';
    await postWebhook(h, comment(301), { event: 'issue_comment' });
    await postWebhook(h, inline, { event: 'pull_request_review_comment' });
    expect(h.calls.map((c) => c.comment.commentType)).toEqual(['issue_comment', 'review_comment']);
  });

  it('a push of one head is dispatched once; another head or another action again', async () => {
    const h = await start();
    const answers = [];
    for (const deliveryId of ['p-1', 'p-2']) {
      answers.push(await postWebhook(h, push(HEAD_A), { event: 'pull_request', deliveryId }));
    }
    answers.push(await postWebhook(h, push(HEAD_B), { event: 'pull_request' }));
    answers.push(await postWebhook(h, push(HEAD_B, 'reopened'), { event: 'pull_request' }));
    expect(answers.map((a) => a.json)).toEqual([
      { status: 'accepted' },
      DUPLICATE.json,
      { status: 'accepted' },
      { status: 'accepted' },
    ]);
    expect(h.calls.map((c) => [c.comment.headSha, c.comment.eventType])).toEqual([
      [HEAD_A, 'pr_push'],
      [HEAD_B, 'pr_push'],
      [HEAD_B, 'pr_reopened'],
    ]);
  });

  it('an event the dispatcher ignored (no job) is dispatched again when it comes back', async () => {
    let answer: DispatchOutcome = { status: 'ignored', reason: 'the job could not be queued' };
    const h = await start(() => answer);
    const body = comment(401);
    expect((await postWebhook(h, body, { event: 'issue_comment' })).json).toEqual(answer);
    answer = { status: 'accepted' };
    expect((await postWebhook(h, body, { event: 'issue_comment' })).json).toEqual({ status: 'accepted' });
    expect((await postWebhook(h, body, { event: 'issue_comment' })).json).toEqual(DUPLICATE.json);
    expect(h.calls).toHaveLength(2);
  });

  it('an event whose dispatch failed (500) is dispatched again under a new delivery id', async () => {
    let fail = true;
    const h = await start(() => {
      if (fail) throw new Error('queue exploded');
      return { status: 'accepted' };
    });
    const body = comment(501);
    expect((await postWebhook(h, body, { event: 'issue_comment' })).status).toBe(500);
    fail = false;
    expect((await postWebhook(h, body, { event: 'issue_comment' })).json).toEqual({ status: 'accepted' });
  });
});
