import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import type { SharedClaim, SharedDedupe } from '../../server/types.js';
import { useTestRedis } from './redis.test-helper.js';
import { connectWebhookClaims, createWebhookClaims, type WebhookClaimsConnection } from './webhook-claims.js';

/** The test's Redis (a fresh one per file, flushed before each test). */
const db = useTestRedis();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TTL = 3600;
const EVENT_A = 'a'.repeat(64);
const EVENT_B = 'b'.repeat(64);

/** Claims on a connection of their own, as a server replica has. */
function replica(timeoutMs?: number): SharedDedupe {
  const redis = db.connect();
  cleanups.push(() => redis.disconnect());
  return createWebhookClaims(redis, { ttlSeconds: TTL, ...(timeoutMs ? { timeoutMs } : {}) });
}

function claimed(claim: SharedClaim): Extract<SharedClaim, { status: 'claimed' }> {
  if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(claim)}`);
  return claim;
}

const keys = async () => (await db.redis.keys('reviewbot:*')).sort();

describe('webhook claims shared by replicas', () => {
  it('claims a delivery id and an event with a token and the TTL, once across replicas', async () => {
    const [a, b] = [replica(), replica()];
    const first = await a.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_A });
    expect(first.status).toBe('claimed');
    expect(await keys()).toEqual(['reviewbot:delivery:github:d-1', `reviewbot:event:${EVENT_A}`]);
    const token = await db.redis.get(`reviewbot:event:${EVENT_A}`);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(await db.redis.get('reviewbot:delivery:github:d-1')).toBe(token);
    for (const key of await keys()) {
      const ttl = await db.redis.ttl(key);
      expect(ttl).toBeGreaterThan(TTL - 10);
      expect(ttl).toBeLessThanOrEqual(TTL);
    }
    // The same delivery id at another replica, whatever its event; the same event under a new id.
    expect(await b.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_B })).toEqual({
      status: 'duplicate delivery',
    });
    expect(await b.claim({ platform: 'github', deliveryId: 'd-2', identity: EVENT_A })).toEqual({
      status: 'duplicate event',
    });
    // A duplicate records nothing: replaying one body under many ids adds no keys.
    expect(await keys()).toEqual(['reviewbot:delivery:github:d-1', `reviewbot:event:${EVENT_A}`]);
    // The delivery id is per platform; an event without a delivery id is claimed by its identity.
    expect((await b.claim({ platform: 'gitlab', deliveryId: 'd-1', identity: EVENT_B })).status).toBe(
      'claimed',
    );
    expect(await a.claim({ identity: EVENT_B, platform: 'gitlab' })).toEqual({ status: 'duplicate event' });
    expect((await a.claim({ platform: 'gitea', deliveryId: 'only-id' })).status).toBe('claimed');
    expect(await b.claim({ platform: 'gitea', deliveryId: 'only-id' })).toEqual({
      status: 'duplicate delivery',
    });
  });

  it('of two copies claimed at the same moment at two replicas, exactly one wins', async () => {
    const [a, b] = [replica(), replica()];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).claim({ platform: 'github', deliveryId: `c-${i}`, identity: EVENT_A }),
      ),
    );
    expect(answers.filter((x) => x.status === 'claimed')).toHaveLength(1);
    expect(answers.filter((x) => x.status === 'duplicate event')).toHaveLength(19);
  });

  it('releases the event only (the dispatch started no job), or the delivery id too (it failed)', async () => {
    const [a, b] = [replica(), replica()];
    const first = claimed(await a.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_A }));
    await first.release('event');
    expect(await keys()).toEqual(['reviewbot:delivery:github:d-1']);
    const second = claimed(await b.claim({ platform: 'github', deliveryId: 'd-2', identity: EVENT_A }));
    await second.release('all');
    expect(await keys()).toEqual(['reviewbot:delivery:github:d-1']);
    expect((await a.claim({ platform: 'github', deliveryId: 'd-2', identity: EVENT_A })).status).toBe(
      'claimed',
    );
  });

  it('releases only the keys that still hold its own token', async () => {
    const [a, b] = [replica(), replica()];
    const stale = claimed(await a.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_A }));
    // The event key expired (or was released) and replica b claimed the event since.
    await db.redis.del(`reviewbot:event:${EVENT_A}`);
    claimed(await b.claim({ platform: 'github', deliveryId: 'd-2', identity: EVENT_A }));
    const owner = await db.redis.get(`reviewbot:event:${EVENT_A}`);
    await stale.release('all');
    // a's delivery id went; b's event and delivery id stayed.
    expect(await keys()).toEqual(['reviewbot:delivery:github:d-2', `reviewbot:event:${EVENT_A}`]);
    expect(await db.redis.get(`reviewbot:event:${EVENT_A}`)).toBe(owner);
    expect(await a.claim({ platform: 'github', deliveryId: 'd-3', identity: EVENT_A })).toEqual({
      status: 'duplicate event',
    });
  });

  it('holds a long delivery id as its digest', async () => {
    const a = replica();
    const id = 'x'.repeat(10_000);
    claimed(await a.claim({ platform: 'github', deliveryId: id }));
    expect(await keys()).toEqual([expect.stringMatching(/^reviewbot:delivery:github:sha256:[0-9a-f]{64}$/)]);
    expect(await a.claim({ platform: 'github', deliveryId: id })).toEqual({ status: 'duplicate delivery' });
    expect((await a.claim({ platform: 'github', deliveryId: `${id}y` })).status).toBe('claimed');
  });
});

describe('a store that does not answer', () => {
  function connect(timeoutMs: number): { claims: WebhookClaimsConnection; logText: () => string } {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const logger = createLogger({ destination: sink, masker: new SecretMasker() });
    const claims = connectWebhookClaims(db.server.url, {
      ttlSeconds: TTL,
      timeoutMs,
      logger,
      masker: new SecretMasker(),
    });
    cleanups.push(() => claims.close());
    return { claims, logText: () => text };
  }

  it('answers unavailable after the time limit when Redis is paused, and claims again after', async () => {
    const { claims } = connect(300);
    expect((await claims.claim({ platform: 'github', deliveryId: 'warm-up' })).status).toBe('claimed');
    await db.redis.call('CLIENT', 'PAUSE', '1500', 'WRITE');
    const started = Date.now();
    const answer = await claims.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_A });
    expect(answer).toEqual({
      status: 'unavailable',
      error: expect.stringMatching(/did not answer|timed out/),
    });
    expect(Date.now() - started).toBeLessThan(1200);
    await db.redis.call('CLIENT', 'UNPAUSE');
    // The timed-out claim may still land: either way the event is held exactly once.
    const again = await claims.claim({ platform: 'github', deliveryId: 'd-2', identity: EVENT_A });
    expect(['claimed', 'duplicate event']).toContain(again.status);
    expect((await claims.claim({ platform: 'github', deliveryId: 'd-3', identity: EVENT_B })).status).toBe(
      'claimed',
    );
  });

  it('answers unavailable at once while Redis is down, logs the connection error, and recovers', async () => {
    const { claims, logText } = connect(1000);
    expect((await claims.claim({ platform: 'github', deliveryId: 'warm-up' })).status).toBe('claimed');
    await db.server.kill();
    await expect.poll(() => logText()).toContain('store connection error');
    const started = Date.now();
    const answer = await claims.claim({ platform: 'github', deliveryId: 'd-1', identity: EVENT_A });
    expect(answer.status).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(500);
    await db.server.restart();
    await expect
      .poll(async () => (await claims.claim({ platform: 'github', deliveryId: 'd-2' })).status, {
        timeout: 10_000,
      })
      .toBe('claimed');
  });
});
