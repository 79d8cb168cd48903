/**
 * Learnings in the store of `store.url` (CONTRACT §20, §9): the Redis hash
 * `reviewbot:learnings:<platform>:<repo>` of id → JSON, with no TTL, shared by the server and every
 * Job pod. `add` is one Lua script, so the cap and the "same id once" rule hold under concurrent jobs.
 */
import type { Redis } from 'ioredis';
import {
  completeLearning,
  newestFirst,
  parseLearning,
  type AddLearningResult,
  type Learning,
  type LearningsScope,
  type LearningsStore,
  type NewLearning,
} from './types.js';

/** `reviewbot:learnings:<platform>:<repo>` (CONTRACT §20). */
export function learningsKey(scope: LearningsScope): string {
  return `reviewbot:learnings:${scope.platform}:${scope.repo}`;
}

/** KEYS[1] hash; ARGV id, json, limit → {0, existing} | {1} added | {2} full. */
const ADD_SCRIPT = `
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then return {0, existing} end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {2} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {1}
`;

/** Options of `createRedisLearningsStore`. */
export interface RedisLearningsStoreOptions {
  /** Learnings one repository may hold. */
  maxPerRepository: number;
  /** Closes `redis` on `close()` (when the store opened the connection itself). */
  ownsConnection?: boolean;
}

/**
 * A LearningsStore on `redis` (a command connection). Entries that do not parse are skipped.
 * Methods reject with the connection's error when Redis cannot be reached.
 */
export function createRedisLearningsStore(redis: Redis, options: RedisLearningsStoreOptions): LearningsStore {
  return {
    async list(scope) {
      const values = await redis.hvals(learningsKey(scope));
      return newestFirst(values.map(parseLearning).filter((l): l is Learning => l !== undefined));
    },
    async add(scope: LearningsScope, input: NewLearning): Promise<AddLearningResult> {
      const learning = completeLearning(input);
      const reply = (await redis.eval(
        ADD_SCRIPT,
        1,
        learningsKey(scope),
        learning.id,
        JSON.stringify(learning),
        String(options.maxPerRepository),
      )) as [number, string?];
      if (reply[0] === 1) return { kind: 'added', learning };
      if (reply[0] === 2) return { kind: 'full', limit: options.maxPerRepository };
      return { kind: 'exists', learning: parseLearning(reply[1] ?? '') ?? learning };
    },
    async remove(scope, id) {
      return (await redis.hdel(learningsKey(scope), id)) > 0;
    },
    async close() {
      if (options.ownsConnection) redis.disconnect();
    },
  };
}
