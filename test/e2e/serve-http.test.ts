/**
 * `reviewbot serve` over real HTTP: status codes of CONTRACT §5, authorization, the bot-loop guard,
 * and the acknowledgment that does not wait for the platform.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, sendGitHubWebhook } from '../support/serve-process.js';
import { signGitHubWebhook } from '../support/webhook-signing.js';
import { issueCommentPayload } from './github-payloads.js';
import {
  ALICE,
  createServeFixture,
  postComment,
  REVIEWER,
  summaryReply,
  waitFor,
  WEBHOOK_SECRET,
  type ServeFixture,
} from './serve-fixture.js';

describe('reviewbot serve: HTTP', () => {
  let fx: ServeFixture;
  beforeAll(async () => {
    fx = await createServeFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  const mention = (body: string, login = ALICE) =>
    issueCommentPayload({ repo: 'acme/widgets', pr: 7, body, login });

  it('answers /health and /metrics', async () => {
    const health = await fetch(`${fx.server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const metrics = await fetch(`${fx.server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('reviewbot_webhooks_total');
  });

  it('rejects bad requests with the contract status codes and starts nothing', async () => {
    const payload = mention(`@${REVIEWER} review please`);
    const before = fx.github.requests.length;
    expect((await sendGitHubWebhook(fx.server.url, 'issue_comment', payload)).status).toBe(401);
    const forged = await sendGitHubWebhook(fx.server.url, 'issue_comment', payload, {
      secret: 'wrong-secret',
    });
    expect(forged.status).toBe(401);
    expect(forged.json.error).toEqual(expect.any(String));
    const notJson = await sendGitHubWebhook(fx.server.url, 'issue_comment', null, {
      secret: WEBHOOK_SECRET,
      body: 'not json{',
    });
    expect(notJson.status).toBe(400);
    const array = await sendGitHubWebhook(fx.server.url, 'issue_comment', null, {
      secret: WEBHOOK_SECRET,
      body: '[1,2]',
    });
    expect(array.status).toBe(400);
    const huge = Buffer.alloc(26 * 1024 * 1024, 0x20);
    // The server answers 413 on the declared length and closes the connection; a sender still
    // writing may see the reset (EPIPE) instead of the answer. Either way nothing is processed.
    const tooLarge = await postRaw(`${fx.server.url}/webhooks/github`, huge, {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-hub-signature-256': signGitHubWebhook(WEBHOOK_SECRET, huge),
    }).catch((error: NodeJS.ErrnoException) => error.code);
    expect([413, 'EPIPE', 'ECONNRESET']).toContain(tooLarge);
    const unknown = await fetch(`${fx.server.url}/webhooks/bitbucket`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    const gitlab = await fetch(`${fx.server.url}/webhooks/gitlab`, { method: 'POST', body: '{}' });
    expect(gitlab.status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(fx.github.requests.length).toBe(before);
    expect(fx.llm.requests).toHaveLength(0);
  });

  it('answers a duplicate delivery 200 ignored and runs the job once', async () => {
    fx.llm.setScript([summaryReply('first and only')]);
    const first = await postComment(fx, 7, `@${REVIEWER} job-dup review`, ALICE, { deliveryId: 'd-1' });
    const payload = mention(`@${REVIEWER} job-dup review`);
    const again = await sendGitHubWebhook(fx.server.url, 'issue_comment', payload, {
      secret: WEBHOOK_SECRET,
      deliveryId: 'd-1',
    });
    expect(first).toMatchObject({ status: 200, json: { status: 'accepted' } });
    expect(again).toMatchObject({ status: 200, json: { status: 'ignored', reason: 'duplicate delivery' } });
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('first and only')),
      20_000,
      'the reply',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(fx.llm.requests).toHaveLength(1);
    expect(fx.github.reactions.filter((r) => r.content === 'eyes')).toHaveLength(1);
  });

  it('ignores an unauthorized user: no reaction, no LLM call', async () => {
    const reactions = fx.github.reactions.length;
    const calls = fx.llm.requests.length;
    const res = await postComment(fx, 7, `@${REVIEWER} please`, 'mallory');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'ignored' });
    expect(String(res.json.reason)).toMatch(/not allowed/);
    await new Promise((r) => setTimeout(r, 700));
    expect(fx.github.reactions.length).toBe(reactions);
    expect(fx.llm.requests.length).toBe(calls);
  });

  it.each([
    ['the configured bot username', REVIEWER],
    ['the authenticated account', 'reviewbot-test'],
    ['any [bot] account', 'dependabot[bot]'],
  ])('ignores a comment by %s', async (_what, login) => {
    const res = await sendGitHubWebhook(
      fx.server.url,
      'issue_comment',
      mention(`@${REVIEWER} loop forever`, login),
      { secret: WEBHOOK_SECRET },
    );
    expect(res.json).toMatchObject({ status: 'ignored' });
    expect(String(res.json.reason)).toMatch(/bot/);
  });

  it('acknowledges within milliseconds while the reaction endpoint takes 2 s, and reacts before the job starts', async () => {
    fx.github.setLatency(2000, /^POST .*\/reactions$/);
    let reactionsAtJobStart = -1;
    const reactionsBefore = fx.github.reactions.length;
    fx.llm.setScript(() => {
      reactionsAtJobStart = fx.github.reactions.length;
      return summaryReply('slow platform, fast ack');
    });
    const res = await postComment(fx, 7, `@${REVIEWER} job-slow check`);
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    expect(res.ms).toBeLessThan(500);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('slow platform, fast ack')),
      30_000,
      'reply',
    );
    expect(reactionsAtJobStart).toBe(reactionsBefore + 1);
    fx.github.setLatency(0);
  });
});
