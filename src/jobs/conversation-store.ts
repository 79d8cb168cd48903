/**
 * The in-memory conversation store of standalone mode (seed "Session store"): per session key, the
 * agent's session id and conversation, so a later job on the same pull request continues it.
 * Bounded: the least recently used conversation is evicted first.
 */
import {
  sessionKeyString,
  type ConversationStore,
  type SessionKey,
  type StoredConversation,
} from './types.js';

/** Default number of conversations kept. */
export const DEFAULT_MAX_CONVERSATIONS = 1000;

/** Options of `createMemoryConversationStore`. */
export interface MemoryConversationStoreOptions {
  /** Most conversations kept (>= 1); default `DEFAULT_MAX_CONVERSATIONS`. */
  maxEntries?: number;
}

/** The in-memory store plus its size (for tests and metrics). */
export interface MemoryConversationStore extends ConversationStore {
  size(): number;
}

/**
 * Creates an in-memory, LRU-bounded ConversationStore. `load` and `save` both count as a use; values
 * are copied in and out, so callers cannot change a stored conversation by mutating what they hold.
 * @throws RangeError when `maxEntries` is not an integer >= 1.
 */
export function createMemoryConversationStore(
  options: MemoryConversationStoreOptions = {},
): MemoryConversationStore {
  const max = options.maxEntries ?? DEFAULT_MAX_CONVERSATIONS;
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`maxEntries must be an integer >= 1, got ${max}`);
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, StoredConversation>();
  return {
    load(key: SessionKey) {
      const id = sessionKeyString(key);
      const found = entries.get(id);
      if (found === undefined) return Promise.resolve(undefined);
      entries.delete(id);
      entries.set(id, found);
      return Promise.resolve(structuredClone(found));
    },
    save(key: SessionKey, conversation: StoredConversation) {
      const id = sessionKeyString(key);
      entries.delete(id);
      entries.set(id, structuredClone(conversation));
      while (entries.size > max) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
      return Promise.resolve();
    },
    size: () => entries.size,
  };
}
