/**
 * Two server replicas sharing one store (a real Redis): copies of one webhook that reach different
 * replicas are dispatched once (CONTRACT §5), and a store that does not answer never costs a job.
 * Real GitHub payloads through the real server and handler, counted at each replica's dispatcher.
 */
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestRedis } from '../cluster/redis/redis.test-helper.js';
import { connectWebhookClaims, createWebhookClaims } from '../cluster/redis/webhook-claims.js';
import { createLogger } from '../logger.js';
import { SecretMasker } from '../secrets.js';
import { issueCommentOnPullRequest } from '../platforms/github/webhook-examples.test-helper.js';
import { DEDUPE_UNAVAILABLE_METRIC } from './shared-claim.js';
import {
  postWebhook,
  startHarness,
  webhookCount,
  type Harness,
  type HarnessOptions,
} from './server.test-helper.js';
import type { SharedDedupe } from './types.js';

const db = useTestRedis();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A replica: a server with its own store connection (pass `dedupe` to replace the store). */
async function replica(options: HarnessOptions = {}, dedupe?: SharedDedupe): Promise<Harness> {
  let sharedDedupe = dedupe;
  if (!sharedDedupe) {
    const redis = db.connect();
    cleanups.push(() => redis.disconnect());
    sharedDedupe = createWebhookClaims(redis, { ttlSeconds: 600 });
  }
  const harness = await startHarness({ ...options, sharedDedupe });
  cleanups.push(() => harness.close());
  return harness;
}

function comment(id: number): Record<string, unknown> {
  const payload = issueCommentOnPullRequest();
  payload.comment.id = id;
  payload.comment.body = '@review-bot please review';
  return payload;
}

const send = (h: Harness, body: unknown, deliveryId: string) =>
  postWebhook(h, body, { event: 'issue_comment', deliveryId }).then((r) => r.json);

const ACCEPTED = { status: 'accepted' };
const DUPLICATE_EVENT = { status: 'ignored', reason: 'duplicate event' };
const DUPLICATE_DELIVERY = { status: 'ignored', reason: 'duplicate delivery' };

describe('webhook de-duplication across replicas', () => {
  it('dispatches a comment once, whichever replicas and delivery ids its copies reach', async () => {
    const [a, b] = [await replica(), await replica()];
    const body = comment(101);
    expect(await send(a, body, 'id-1')).toEqual(ACCEPTED);
    expect(await send(b, body, 'id-2')).toEqual(DUPLICATE_EVENT);
    expect(await send(b, body, 'id-1')).toEqual(DUPLICATE_DELIVERY);
    expect(await send(a, comment(102), 'id-3')).toEqual(ACCEPTED);
    expect(await send(b, comment(102), 'id-3')).toEqual(DUPLICATE_DELIVERY);
    expect(a.calls.map((c) => c.comment.commentId)).toEqual(['101', '102']);
    expect(b.calls).toEqual([]);
    expect(await webhookCount(b.metrics, 'github', 'duplicate')).toBe(3);
    // Copies arriving at both replicas at once.
    const body3 = comment(103);
    const answers = await Promise.all(
      ['c-1', 'c-2', 'c-3', 'c-4'].map((id, i) => send(i % 2 ? a : b, body3, id)),
    );
    expect(answers.filter((x) => JSON.stringify(x) === JSON.stringify(ACCEPTED))).toHaveLength(1);
    expect([...a.calls, ...b.calls].filter((c) => c.comment.commentId === '103')).toHaveLength(1);
  });

  it('lets another replica take an event whose dispatch started no job, or failed', async () => {
    let outcome: 'ignored' | 'throw' = 'ignored';
    const a = await replica({
      outcome: () => {
        if (outcome === 'throw') throw new Error('queue exploded');
        return { status: 'ignored', reason: 'the job could not be queued' };
      },
    });
    const b = await replica();
    expect(await send(a, comment(201), 'id-1')).toEqual({
      status: 'ignored',
      reason: 'the job could not be queued',
    });
    expect(await send(b, comment(201), 'id-2')).toEqual(ACCEPTED);
    outcome = 'throw';
    expect((await postWebhook(a, comment(202), { event: 'issue_comment', deliveryId: 'id-3' })).status).toBe(
      500,
    );
    // The failed delivery may be redelivered under its own id, to any replica.
    expect(await send(b, comment(202), 'id-3')).toEqual(ACCEPTED);
    expect(b.calls.map((c) => c.comment.commentId)).toEqual(['201', '202']);
  });

  it('asks the store nothing for a delivery that parses into no event', async () => {
    const a = await replica();
    const ping = { zen: 'Keep it logically awesome.', hook_id: 1 };
    const answer = await postWebhook(a, ping, { event: 'ping', deliveryId: 'ping-1' });
    expect(answer.json).toMatchObject({ status: 'ignored' });
    expect(await db.redis.keys('reviewbot:*')).toEqual([]);
  });

  it('dispatches anyway when the store does not answer: a warning and a count, no job lost', async () => {
    // A store URL where nothing listens (the port of a server just closed).
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const silent = createLogger({
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
      masker: new SecretMasker(),
    });
    const down = connectWebhookClaims(`redis://127.0.0.1:${port}/0`, {
      ttlSeconds: 600,
      logger: silent,
      masker: new SecretMasker(),
    });
    cleanups.push(() => down.close());
    const a = await replica({}, down);
    const started = Date.now();
    expect(await send(a, comment(301), 'id-1')).toEqual(ACCEPTED);
    expect(Date.now() - started).toBeLessThan(1500);
    // This replica's own memory still holds.
    expect(await send(a, comment(301), 'id-2')).toEqual(DUPLICATE_EVENT);
    expect(a.calls).toHaveLength(1);
    const warning = a.logs().find((l) => String(l.msg).startsWith('store unavailable'));
    expect(warning).toMatchObject({ level: 40, platform: 'github', deliveryId: 'id-1' });
    const metric = await a.metrics.registry.getSingleMetric(DEDUPE_UNAVAILABLE_METRIC)?.get();
    expect(metric?.values).toEqual([{ labels: { platform: 'github' }, value: 1 }]);
  });
});
