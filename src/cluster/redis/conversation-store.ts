/**
 * The cluster-mode ConversationStore (seed "Cluster mode behaviour"; CONTRACT §9): one JSON string
 * per session key at `reviewbot:conv:<platform>:<repo>:<pr>:<botType>`, with a TTL of
 * `store.key_ttl_seconds` set again on every save, so multi-turn conversations work across Job pods.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import {
  sessionKeyString,
  type ConversationStore,
  type SessionKey,
  type StoredConversation,
} from '../../jobs/types.js';
import { conversationKey } from './keys.js';

/** Options of `createRedisConversationStore`. */
export interface RedisConversationStoreOptions {
  /** `store.key_ttl_seconds`: lifetime of a conversation after its last save, seconds (integer >= 1). */
  ttlSeconds: number;
  /** Told when a stored value is not a conversation (it is then treated as absent). */
  logger?: Logger;
}

const storedConversation = z.object({
  sessionId: z.string(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
  updatedAt: z.string(),
});

/** `reviewbot:conv:<platform>:<repo>:<pr>:<botType>` of `key` (CONTRACT §9). */
export function conversationKeyOf(key: SessionKey): string {
  return conversationKey(sessionKeyString(key));
}

/**
 * Creates a ConversationStore on `redis` (a command connection; the caller owns and closes it).
 * `load` returns undefined for a missing, expired or malformed value (a malformed one is logged);
 * `save` writes the whole conversation with `SET … EX ttlSeconds`.
 * `load`/`save` reject with the connection's error when Redis cannot be reached.
 * @throws RangeError when `ttlSeconds` is not an integer >= 1.
 */
export function createRedisConversationStore(
  redis: Redis,
  options: RedisConversationStoreOptions,
): ConversationStore {
  const { ttlSeconds, logger } = options;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
    throw new RangeError(`ttlSeconds must be an integer >= 1, got ${ttlSeconds}`);
  }
  return {
    async load(key) {
      const name = conversationKeyOf(key);
      const text = await redis.get(name);
      if (text === null) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      const parsed = storedConversation.safeParse(value);
      if (!parsed.success) {
        logger?.warn({ key: name }, 'stored conversation is malformed; starting a new one');
        return undefined;
      }
      return parsed.data satisfies StoredConversation;
    },
    async save(key, conversation) {
      await redis.set(conversationKeyOf(key), JSON.stringify(conversation), 'EX', ttlSeconds);
    },
  };
}
