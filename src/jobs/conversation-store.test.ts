import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore } from './conversation-store.js';
import type { SessionKey, StoredConversation } from './types.js';

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

describe('createMemoryConversationStore', () => {
  it('returns what was saved under the same key, and nothing for other keys', async () => {
    const store = createMemoryConversationStore();
    await store.save(key(1), conversation('one'));
    expect(await store.load(key(1))).toEqual(conversation('one'));
    expect(await store.load(key(1, 'worker'))).toBeUndefined();
    expect(await store.load(key(2))).toBeUndefined();
    expect(await store.load({ ...key(1), platform: 'gitlab' })).toBeUndefined();
  });

  it('replaces a conversation on save', async () => {
    const store = createMemoryConversationStore();
    await store.save(key(1), conversation('one'));
    await store.save(key(1), conversation('two'));
    expect((await store.load(key(1)))?.sessionId).toBe('session-two');
    expect(store.size()).toBe(1);
  });

  it('evicts the least recently used conversation beyond maxEntries', async () => {
    const store = createMemoryConversationStore({ maxEntries: 2 });
    await store.save(key(1), conversation('one'));
    await store.save(key(2), conversation('two'));
    await store.load(key(1)); // 1 is now more recent than 2
    await store.save(key(3), conversation('three'));
    expect(store.size()).toBe(2);
    expect(await store.load(key(2))).toBeUndefined();
    expect(await store.load(key(1))).toBeDefined();
    expect(await store.load(key(3))).toBeDefined();
  });

  it('keeps stored values apart from the caller’s objects', async () => {
    const store = createMemoryConversationStore();
    const saved = conversation('one');
    await store.save(key(1), saved);
    saved.messages.push({ role: 'user', content: 'mutated after save' });
    const loaded = await store.load(key(1));
    loaded?.messages.push({ role: 'user', content: 'mutated after load' });
    expect((await store.load(key(1)))?.messages).toHaveLength(2);
  });

  it.each([0, -3, 2.5])('refuses maxEntries %s', (maxEntries) => {
    expect(() => createMemoryConversationStore({ maxEntries })).toThrow(RangeError);
  });
});
