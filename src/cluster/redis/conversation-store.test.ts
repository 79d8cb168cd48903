import { describe, expect, it } from 'vitest';
import { useTestRedis } from './redis.test-helper.js';
import type { SessionKey, StoredConversation } from '../../jobs/types.js';
import { conversationKeyOf, createRedisConversationStore } from './conversation-store.js';

const db = useTestRedis({ persistent: true });

const key = (prNumber: number, botType: SessionKey['botType'] = 'reviewer'): SessionKey => ({
  platform: 'github',
  repoFullName: 'acme/widgets',
  prNumber,
  botType,
});

const conversation = (text: string): StoredConversation => ({
  sessionId: `session-${text}`,
  messages: [
    { role: 'user', content: `ask ${text}` },
    { role: 'assistant', content: `answer ${text}` },
  ],
  updatedAt: '2025-01-01T00:00:00.000Z',
});

describe('createRedisConversationStore', () => {
  it('stores the conversation as JSON under the contract key with the configured TTL', async () => {
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 120 });
    await store.save(key(7), conversation('one'));
    expect(conversationKeyOf(key(7))).toBe('reviewbot:conv:github:acme/widgets:7:reviewer');
    const raw = await db.redis.get('reviewbot:conv:github:acme/widgets:7:reviewer');
    expect(JSON.parse(raw ?? 'null')).toEqual(conversation('one'));
    const ttl = await db.redis.ttl('reviewbot:conv:github:acme/widgets:7:reviewer');
    expect(ttl).toBeGreaterThan(110);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('returns what was saved for the same key only', async () => {
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 60 });
    await store.save(key(1), conversation('one'));
    expect(await store.load(key(1))).toEqual(conversation('one'));
    expect(await store.load(key(1, 'worker'))).toBeUndefined();
    expect(await store.load(key(2))).toBeUndefined();
    expect(await store.load({ ...key(1), platform: 'gitlab' })).toBeUndefined();
  });

  it('is shared by separate clients (a second Job pod continues the conversation)', async () => {
    const other = db.connect();
    try {
      await createRedisConversationStore(db.redis, { ttlSeconds: 60 }).save(
        key(3),
        conversation('first pod'),
      );
      const loaded = await createRedisConversationStore(other, { ttlSeconds: 60 }).load(key(3));
      expect(loaded?.messages.map((m) => m.content)).toEqual(['ask first pod', 'answer first pod']);
    } finally {
      other.disconnect();
    }
  });

  it('refreshes the TTL on every save', async () => {
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 300 });
    await store.save(key(4), conversation('one'));
    await db.redis.expire(conversationKeyOf(key(4)), 5);
    await store.save(key(4), conversation('two'));
    expect(await db.redis.ttl(conversationKeyOf(key(4)))).toBeGreaterThan(290);
    expect((await store.load(key(4)))?.sessionId).toBe('session-two');
  });

  it('forgets the conversation when its key expires', async () => {
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 1 });
    await store.save(key(5), conversation('short'));
    await db.redis.pexpire(conversationKeyOf(key(5)), 30);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.load(key(5))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{broken'],
    ['wrong shape', JSON.stringify({ sessionId: 1, messages: 'x' })],
    [
      'bad role',
      JSON.stringify({ sessionId: 's', messages: [{ role: 'system', content: 'x' }], updatedAt: 'u' }),
    ],
  ])('treats a malformed value (%s) as no conversation', async (_name, value) => {
    await db.redis.set(conversationKeyOf(key(6)), value);
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 60 });
    expect(await store.load(key(6))).toBeUndefined();
  });

  it('keeps conversations across a restart of a persistent store', async () => {
    const store = createRedisConversationStore(db.redis, { ttlSeconds: 600 });
    await store.save(key(8), conversation('durable'));
    await db.server.kill();
    await db.server.restart();
    expect(await store.load(key(8))).toEqual(conversation('durable'));
  });

  it.each([0, -1, 1.5])('rejects ttlSeconds %s', (ttlSeconds) => {
    expect(() => createRedisConversationStore(db.redis, { ttlSeconds })).toThrow(RangeError);
  });
});
