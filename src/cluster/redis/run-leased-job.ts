/**
 * Runs one job of the Redis queue under its key's lease: parses the payload taken from Redis,
 * renews the lease while `execute` runs, and aborts `execute` when the lease is lost.
 */
import type { Redis } from 'ioredis';
import { describeError } from '../../errors.js';
import { parseJobPayload } from '../../jobs/payload.js';
import type { JobPayload } from '../../jobs/types.js';
import type { Logger } from '../../logger.js';
import { startLeaseRenewal } from './lease-renewal.js';

/** What `execute` gets besides the payload. */
export interface ExecuteContext {
  /**
   * Aborted when this replica must stop running the job: its lease was lost, `shutdown` passed its
   * bound, or `crash()`. The job then stays in Redis and is run again by the key's next owner.
   */
  signal: AbortSignal;
  /** True when the job was found in flight, left by an owner that died or gave up. */
  resumed: boolean;
  /**
   * True when the step that took this job also settled the key's previous job (the key's next job,
   * started on its predecessor's end); false for the first job of a key that was idle.
   */
  handover: boolean;
}

/** Runs one job to its end; see `RedisJobQueueOptions.execute` for the idempotence it owes. */
export type ExecuteJob = (payload: JobPayload, context: ExecuteContext) => Promise<void>;

/** Options of `runLeasedJob`. */
export interface RunLeasedJobOptions {
  redis: Redis;
  /** Queue key (`platform:repo:pr:botType`). */
  key: string;
  ownerId: string;
  /** Lease length, ms. */
  leaseMs: number;
  logger: Logger;
  execute: ExecuteJob;
  /** The payload JSON as taken from `reviewbot:active:<key>`. */
  text: string;
  resumed: boolean;
  /** See `ExecuteContext.handover`. */
  handover: boolean;
  /** When the step that set the lease was sent, epoch ms. */
  leaseSetAt: number;
  /** Told the running job (its abort controller and payload) at the start, and undefined at the end. */
  onRunning: (job: { controller: AbortController; payload: JobPayload } | undefined) => void;
}

/**
 * Runs the job. Returns true when it finished — `execute` resolved, or rejected (logged, not
 * retried), or the payload was malformed (logged, skipped) — and false when it was aborted (lease
 * lost, shutdown, crash): the job must then stay in flight for the next owner. Never throws.
 */
export async function runLeasedJob(options: RunLeasedJobOptions): Promise<boolean> {
  const { key, logger } = options;
  let payload: JobPayload;
  try {
    payload = parseJobPayload(options.text);
  } catch (error) {
    logger.error({ key, err: describeError(error) }, 'job queue: dropping a malformed job payload');
    return true;
  }
  const log = logger.child({ key, jobId: payload.jobId });
  if (options.resumed) log.warn('job queue: resuming a job left in flight; it may run a second time');
  const controller = new AbortController();
  options.onRunning({ controller, payload });
  const stopRenewal = startLeaseRenewal({
    redis: options.redis,
    key,
    ownerId: options.ownerId,
    leaseMs: options.leaseMs,
    logger,
    since: options.leaseSetAt,
    onLost(reason) {
      log.error({ reason }, 'job queue: lease lost; stopped taking jobs for this key');
      controller.abort(new Error(`lease lost: ${reason}`));
    },
  });
  try {
    await options.execute(payload, {
      signal: controller.signal,
      resumed: options.resumed,
      handover: options.handover,
    });
  } catch (error) {
    if (!controller.signal.aborted) log.error({ err: describeError(error) }, 'job queue: execute failed');
  } finally {
    stopRenewal();
    options.onRunning(undefined);
  }
  return !controller.signal.aborted;
}
