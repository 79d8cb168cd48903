import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  githubExample,
  issueCommentOnPullRequest,
} from '../platforms/github/webhook-examples.test-helper.js';
import { signGitHubWebhook } from '../../test/support/webhook-signing.js';
import {
  postWebhook,
  startHarness,
  WEBHOOK_SECRET,
  webhookCount,
  type Harness,
} from './server.test-helper.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

function mention(body = '@review-bot please review'): Record<string, unknown> {
  const payload = issueCommentOnPullRequest();
  payload.comment.body = body;
  return payload;
}

/** A mention in comment `id` (each comment starts its own job). */
function commentNumbered(id: number): Record<string, unknown> {
  const payload = issueCommentOnPullRequest();
  payload.comment.id = id;
  payload.comment.body = `@review-bot comment ${id}`;
  return payload;
}

describe('GET /health and /metrics', () => {
  it('answers health', async () => {
    const h = await start();
    const response = await fetch(`${h.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('shows webhook counters in Prometheus text format', async () => {
    const h = await start();
    await postWebhook(h, mention(), { event: 'issue_comment' });
    await postWebhook(h, githubExample('ping'), { event: 'ping' });
    await postWebhook(h, mention(), { event: 'issue_comment', signature: 'sha256=00' });
    const response = await fetch(`${h.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('reviewbot_webhooks_total{platform="github",outcome="accepted"} 1');
    expect(text).toContain('reviewbot_webhooks_total{platform="github",outcome="ignored"} 1');
    expect(text).toContain('reviewbot_webhooks_total{platform="github",outcome="unauthorized"} 1');
    expect(text).toContain('# TYPE reviewbot_queue_depth gauge');
  });

  it('answers 404 on other paths', async () => {
    const h = await start();
    const response = await fetch(`${h.url}/webhooks`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
  });
});

describe('POST /webhooks/:platform', () => {
  it('dispatches a verified mention and answers accepted', async () => {
    const h = await start();
    const { status, json } = await postWebhook(h, mention(), {
      event: 'issue_comment',
      deliveryId: 'guid-1',
    });
    expect(status).toBe(200);
    expect(json).toEqual({ status: 'accepted' });
    expect(h.calls).toHaveLength(1);
    expect(h.calls[0]?.platform.name).toBe('github');
    expect(h.calls[0]?.comment).toEqual({
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
      body: '@review-bot please review',
      cloneUrl: '',
      deliveryId: 'guid-1',
      eventType: 'comment',
    });
    expect(await webhookCount(h.metrics, 'github', 'accepted')).toBe(1);
    const line = h.logs().find((l) => l.msg === 'webhook accepted');
    expect(line).toMatchObject({
      deliveryId: 'guid-1',
      platform: 'github',
      repo: 'Codertocat/Hello-World',
      pr: 1,
    });
    expect(h.logText()).not.toContain(WEBHOOK_SECRET);
  });

  it('accepts GitHub form-encoded deliveries (payload=<json>), verified on the raw bytes', async () => {
    const h = await start();
    const form = new URLSearchParams({ payload: JSON.stringify(mention('@review-bot form')) }).toString();
    const { status, json } = await postWebhook(h, form, {
      event: 'issue_comment',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect({ status, json }).toEqual({ status: 200, json: { status: 'accepted' } });
    expect(h.calls[0]?.comment.body).toBe('@review-bot form');
  });

  it('reads a body sent without a Content-Type header', async () => {
    const h = await start();
    const body = JSON.stringify(mention('@review-bot bare'));
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${h.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-length': Buffer.byteLength(body),
          'x-github-event': 'issue_comment',
          'x-github-delivery': 'no-ct',
          'x-hub-signature-256': signGitHubWebhook(WEBHOOK_SECRET, body),
        },
      });
      req.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(200);
    expect(h.calls[0]?.comment.body).toBe('@review-bot bare');
  });

  it('passes a review comment with its thread to the dispatcher', async () => {
    const h = await start();
    const payload = githubExample('pull_request_review_comment', 'created', (p) => p.comment.line === 265);
    payload.comment.in_reply_to_id = 777;
    const { json } = await postWebhook(h, payload, { event: 'pull_request_review_comment' });
    expect(json).toEqual({ status: 'accepted' });
    expect(h.calls[0]?.comment).toMatchObject({
      commentType: 'review_comment',
      filePath: 'README.md',
      line: 265,
      discussionId: '777',
      prBranch: 'changes',
    });
  });

  it('returns the dispatcher’s ignored reason', async () => {
    const h = await start({ outcome: () => ({ status: 'ignored', reason: 'no mention of a bot' }) });
    const { status, json } = await postWebhook(h, mention('hello'), { event: 'issue_comment' });
    expect({ status, json }).toEqual({
      status: 200,
      json: { status: 'ignored', reason: 'no mention of a bot' },
    });
    expect(await webhookCount(h.metrics, 'github', 'ignored')).toBe(1);
  });

  it.each([
    ['ping', githubExample('ping'), 'ping'],
    ['issue_comment', githubExample('issue_comment', 'created'), 'not a pull request'],
    ['issue_comment', githubExample('issue_comment', 'edited'), 'issue_comment action "edited" not handled'],
    ['pull_request', githubExample('pull_request', 'closed'), 'pull_request action "closed" not handled'],
    ['star', { action: 'created' }, 'event "star" not handled'],
  ])('answers %s events the parser ignores without dispatching (%#)', async (event, payload, reason) => {
    const h = await start();
    const { status, json } = await postWebhook(h, payload, { event });
    expect({ status, json }).toEqual({ status: 200, json: { status: 'ignored', reason } });
    expect(h.calls).toHaveLength(0);
  });

  it.each([
    ['a wrong signature', signGitHubWebhook('not-the-secret', JSON.stringify(mention()))],
    ['no signature', null],
    ['a malformed signature', 'sha256=xyz'],
  ])('answers 401 to %s and does nothing else', async (_name, signature) => {
    const h = await start();
    const body = mention();
    const { status, json } = await postWebhook(h, body, {
      event: 'issue_comment',
      deliveryId: 'd-401',
      signature,
    });
    expect(status).toBe(401);
    expect(json).toEqual({ error: expect.any(String) });
    expect(h.calls).toHaveLength(0);
    expect(await webhookCount(h.metrics, 'github', 'unauthorized')).toBe(1);
    // The delivery id was not recorded: the genuine delivery still goes through.
    const again = await postWebhook(h, body, { event: 'issue_comment', deliveryId: 'd-401' });
    expect(again.json).toEqual({ status: 'accepted' });
  });

  it('answers 401 before looking at the body', async () => {
    const h = await start();
    const { status } = await postWebhook(h, 'not json', { event: 'issue_comment', signature: 'sha256=00' });
    expect(status).toBe(401);
    expect(await webhookCount(h.metrics, 'github', 'bad_request')).toBe(0);
  });

  it.each([
    ['not JSON', 'application/json', '{"action": "created",'],
    ['a JSON array', 'application/json', '[{"action":"created"}]'],
    ['a JSON string', 'application/json', '"created"'],
    ['JSON null', 'application/json', 'null'],
    ['an empty body', 'application/json', ''],
    ['a form without payload', 'application/x-www-form-urlencoded', 'other=1'],
    ['a form whose payload is not JSON', 'application/x-www-form-urlencoded', 'payload=%7Bnope'],
  ])('answers 400 to a verified body that is %s', async (_name, contentType, body) => {
    const h = await start();
    const { status, json } = await postWebhook(h, body, { event: 'issue_comment', contentType });
    expect(status).toBe(400);
    expect(json).toEqual({ error: expect.any(String) });
    expect(h.calls).toHaveLength(0);
    expect(await webhookCount(h.metrics, 'github', 'bad_request')).toBe(1);
  });

  it.each([
    ['an unknown platform', 'bitbucket'],
    ['a platform without a webhook secret', 'gitlab'],
    ['a differently cased name', 'GitHub'],
  ])('answers 404 to %s', async (_name, platform) => {
    const h = await start();
    const { status, json } = await postWebhook(h, mention(), { event: 'issue_comment', platform });
    expect({ status, json }).toEqual({ status: 404, json: { error: 'unknown platform' } });
    expect(h.calls).toHaveLength(0);
  });

  it('answers a repeated delivery id as a duplicate and dispatches once', async () => {
    const h = await start();
    const first = await postWebhook(h, mention(), { event: 'issue_comment', deliveryId: 'same' });
    const second = await postWebhook(h, mention(), { event: 'issue_comment', deliveryId: 'same' });
    expect(first.json).toEqual({ status: 'accepted' });
    expect(second).toEqual({ status: 200, json: { status: 'ignored', reason: 'duplicate delivery' } });
    expect(h.calls).toHaveLength(1);
    expect(await webhookCount(h.metrics, 'github', 'duplicate')).toBe(1);
  });

  it('remembers only the most recent delivery ids (bounded memory)', async () => {
    const h = await start({ dedupeCapacity: 2 });
    const comments = [1, 2, 3, 4, 5].map((id) => commentNumbered(id));
    for (const [i, id] of ['a', 'b', 'c'].entries())
      await postWebhook(h, comments[i], { event: 'issue_comment', deliveryId: id });
    expect(
      (await postWebhook(h, comments[3], { event: 'issue_comment', deliveryId: 'c' })).json,
    ).toMatchObject({
      reason: 'duplicate delivery',
    });
    expect((await postWebhook(h, comments[4], { event: 'issue_comment', deliveryId: 'a' })).json).toEqual({
      status: 'accepted',
    });
    expect(h.calls).toHaveLength(4);
  });

  it('answers 500 when the dispatcher throws, and lets a redelivery through', async () => {
    let fail = true;
    const h = await start({
      outcome: () => {
        if (fail) throw new Error('queue exploded');
        return { status: 'accepted' };
      },
    });
    const first = await postWebhook(h, mention(), { event: 'issue_comment', deliveryId: 'r-1' });
    expect(first).toEqual({ status: 500, json: { error: 'internal error' } });
    fail = false;
    const redelivery = await postWebhook(h, mention(), { event: 'issue_comment', deliveryId: 'r-1' });
    expect(redelivery.json).toEqual({ status: 'accepted' });
  });
});
