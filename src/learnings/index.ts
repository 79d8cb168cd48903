/**
 * Opens the learnings store a process should use (CONTRACT §20): the Redis hash of `store.url` when
 * one is configured (server, Job pods, a CLI pointed at the cluster's store), else the JSON files
 * under `<workspace.base_dir>/.learnings/`.
 */
import { createFileLearningsStore } from './file-store.js';
import { LEARNING_LIMITS, type LearningsStore } from './types.js';

export * from './types.js';

/** Where learnings live: the store URL when set, else the workspace base directory. */
export interface LearningsLocation {
  /** `store.url` (redis:// or rediss://). */
  storeUrl?: string;
  /** `workspace.base_dir`. */
  baseDir: string;
}

/**
 * Opens the store of `location`. The Redis client is loaded only when a store URL is given; the
 * store owns that connection (`close()` ends it).
 */
export async function openLearningsStore(location: LearningsLocation): Promise<LearningsStore> {
  if (location.storeUrl) {
    const [{ Redis }, { createRedisLearningsStore }] = await Promise.all([
      import('ioredis'),
      import('./redis-store.js'),
    ]);
    const redis = new Redis(location.storeUrl, { maxRetriesPerRequest: 5, lazyConnect: true });
    return createRedisLearningsStore(redis, {
      maxPerRepository: LEARNING_LIMITS.maxPerRepository,
      ownsConnection: true,
    });
  }
  return createFileLearningsStore({
    baseDir: location.baseDir,
    maxPerRepository: LEARNING_LIMITS.maxPerRepository,
  });
}
