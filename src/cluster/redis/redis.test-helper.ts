/**
 * `useTestRedis`: a test file's own `redis-server` (see `startRedis`), started before its tests,
 * flushed before each one and stopped after them, with a connection of the file's own.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startRedis, type RedisServer, type StartRedisOptions } from '../../../test/support/redis-server.js';

/** The file's Redis; read `server` and `redis` inside hooks and tests (they exist from `beforeAll`). */
export interface TestRedis {
  readonly server: RedisServer;
  /** The file's own connection (assertions, set-up). */
  readonly redis: Redis;
  /** A new connection whose errors (the store restarted or killed on purpose) are expected. */
  connect(): Redis;
}

/**
 * Registers the hooks; `flush: false` keeps data between tests (default: FLUSHALL before each).
 */
export function useTestRedis(options: StartRedisOptions & { flush?: boolean } = {}): TestRedis {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  const store: TestRedis = {
    get server() {
      if (!server) throw new Error('useTestRedis: the server starts in beforeAll');
      return server;
    },
    get redis() {
      if (!redis) throw new Error('useTestRedis: the connection opens in beforeAll');
      return redis;
    },
    connect() {
      const connection = new Redis(store.server.url);
      connection.on('error', () => undefined);
      return connection;
    },
  };
  beforeAll(async () => {
    server = await startRedis({ ...(options.persistent ? { persistent: true } : {}) });
    redis = store.connect();
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  if (options.flush !== false) beforeEach(async () => void (await store.redis.flushall()));
  return store;
}
