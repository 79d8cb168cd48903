/**
 * The standalone JobRunner (seed "Cluster mode behaviour": "same process, in-process queue"): jobs
 * run in this process on the session queue, one at a time per session key, at most
 * `webhook.max_concurrent_jobs` at once.
 */
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PlatformName } from '../platforms/types.js';
import { createSessionQueue } from './session-queue.js';
import { sessionKeyOf, sessionKeyString, type JobPayload, type JobRunner } from './types.js';

/** Options of `createInProcessJobRunner`. */
export interface InProcessJobRunnerOptions {
  /** `webhook.max_concurrent_jobs` (>= 1). */
  maxConcurrentJobs: number;
  /** Runs one job (usually `(payload) => runJob(payload, ctx)`); a rejection is logged. */
  execute: (payload: JobPayload) => Promise<unknown>;
  logger: Logger;
  /** Receives the queue depth (jobs queued or running) whenever it changes. */
  metrics: Pick<Metrics, 'queueDepth'>;
}

/** The in-process runner, plus what the server and its tests may ask of it. */
export interface InProcessJobRunner extends JobRunner {
  /**
   * True while a job of pull request `repoFullName#prNumber` on `platform` (any bot type) is queued
   * or running, i.e. its workspace is or will soon be in use (the cleaner's `isBusy`).
   */
  isBusy(platform: PlatformName, repoFullName: string, prNumber: number): boolean;
  /** Resolves when no job is queued or running. */
  idle(): Promise<void>;
}

/**
 * Creates the in-process JobRunner. `submit` queues the job on its session key; the job starts
 * after its `before` promise settles (the `eyes` reaction), in FIFO order per key. After
 * `shutdown` further submits are logged as dropped; `shutdown` returns the dropped jobs for the
 * caller to log.
 * @throws RangeError when `maxConcurrentJobs` is not an integer >= 1.
 */
export function createInProcessJobRunner(options: InProcessJobRunnerOptions): InProcessJobRunner {
  const { logger } = options;
  /** Jobs queued or running per `platform:repo#pr` (repository lower-cased), for `isBusy`. */
  const perPullRequest = new Map<string, number>();
  const prKey = (platform: string, repo: string, pr: number) => `${platform}:${repo.toLowerCase()}#${pr}`;
  const payloadPrKey = (p: JobPayload) =>
    prKey(p.comment.platform, p.comment.repoFullName, p.comment.prNumber);
  const count = (key: string, delta: number) => {
    const next = (perPullRequest.get(key) ?? 0) + delta;
    if (next <= 0) perPullRequest.delete(key);
    else perPullRequest.set(key, next);
  };

  const queue = createSessionQueue<JobPayload>({
    maxConcurrent: options.maxConcurrentJobs,
    async process(payload) {
      try {
        await options.execute(payload);
      } finally {
        count(payloadPrKey(payload), -1);
      }
    },
    onError(error, payload) {
      logger.error(
        { jobId: payload.jobId, err: error instanceof Error ? error.message : String(error) },
        'job threw',
      );
    },
    onDepthChange: (depth) => options.metrics.queueDepth(depth),
  });

  return {
    submit(payload, submitOptions) {
      const key = sessionKeyString(sessionKeyOf(payload));
      count(payloadPrKey(payload), 1);
      if (!queue.enqueue(key, payload, submitOptions?.before)) {
        count(payloadPrKey(payload), -1);
        logger.warn({ jobId: payload.jobId, key }, 'shutting down: job dropped');
      }
    },
    depth: () => queue.depth(),
    isBusy: (platform, repoFullName, prNumber) => perPullRequest.has(prKey(platform, repoFullName, prNumber)),
    idle: () => queue.idle(),
    shutdown: (timeoutMs) => queue.shutdown(timeoutMs),
  };
}
