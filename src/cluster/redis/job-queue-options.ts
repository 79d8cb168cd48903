/** Options and public shape of the Redis job queue (`createRedisJobQueue`, job-queue.ts). */
import type { Redis } from 'ioredis';
import type { JobRunner } from '../../jobs/types.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { ExecuteJob } from './run-leased-job.js';

export type { ExecuteContext, ExecuteJob } from './run-leased-job.js';

/** Default lease length, ms. */
export const DEFAULT_LEASE_MS = 30_000;
/** Default interval of the sweep for keys without a live consumer, ms. */
export const DEFAULT_SWEEP_INTERVAL_MS = 5_000;

/** Options of `createRedisJobQueue`. */
export interface RedisJobQueueOptions {
  /**
   * Creates the queue's connection (called once; the queue owns it and closes it on shutdown).
   * Suggested: `new Redis(url, { maxRetriesPerRequest: null })`, so commands wait through a store
   * outage instead of failing after 20 reconnect attempts. Needs Redis >= 6.2 (LMOVE).
   */
  redis: () => Redis;
  /** Unique per process (e.g. pod name + random suffix); two live processes must never share one. */
  ownerId: string;
  /**
   * Runs one job to its end (e.g. create the Kubernetes Job and wait for its completion signal).
   * MUST be idempotent per `payload.jobId`: after a crash, a lost lease or a shutdown past its
   * bound, the job is executed again by the next owner (`resumed: true`), so `execute` may be
   * called twice for one job id (the Kubernetes side looks its Job up by the `reviewbot/job-id`
   * label before creating one). A rejection is logged and the job counts as finished (no retry).
   */
  execute: ExecuteJob;
  logger: Logger;
  /** Receives the approximate queue depth (pending + in flight of the keys this replica knows). */
  metrics: Pick<Metrics, 'queueDepth'>;
  /** Lease length, ms (>= 100). Default 30 000. A job of a dead replica is resumed after this. */
  leaseMs?: number;
  /** Interval of the sweep that takes over keys whose lease is free, ms (>= 10). Default 5 000. */
  sweepIntervalMs?: number;
}

/** The Redis JobRunner plus its start-up and a test hook. */
export interface RedisJobQueue extends JobRunner {
  /**
   * Resumes every key that still has pending or in-flight jobs (found in the key set and by SCAN
   * of `reviewbot:queue:*` / `reviewbot:active:*`) and starts the periodic sweep. Call once at
   * start-up. Never rejects: store errors are logged and the next sweep tries again.
   */
  start(): Promise<void>;
  /**
   * Test hook simulating a process death: drops the connection without releasing anything and
   * aborts running `execute` calls; leases expire on their own and other replicas resume.
   */
  crash(): void;
}
