/**
 * Runs one queued job as a Kubernetes Job (seed part 3 cluster rules, CONTRACT §9–§10): looks the
 * Job up by its `reviewbot/job-id` label first (idempotent after a crash), otherwise creates it after
 * the completion watcher is subscribed, both through the creation gate (`creation-gate.ts`: bounded,
 * hand-overs first); then waits for the completion signal, the Kubernetes API reporting the Job
 * failed, or `active_deadline_seconds` + 10 s from the Job's creation.
 */
import type { RawConfig } from '../config/schema.js';
import type { JobPayload } from '../jobs/types.js';
import type { Logger } from '../logger.js';
import type { KubernetesJobs } from './k8s/client.js';
import { createCreationGate, type CreationGateOptions } from './creation-gate.js';
import { buildJobSpec } from './k8s/job-spec.js';
import type { DoneWatcher } from './redis/done-watcher.js';
import type { ExecuteContext } from './redis/run-leased-job.js';

/** The margin the server waits past `active_deadline_seconds` before moving on (seed part 8), ms. */
export const DEADLINE_MARGIN_MS = 10_000;

/** Dependencies of `createKubernetesExecutor`. */
export interface KubernetesExecutorOptions {
  jobs: KubernetesJobs;
  watcher: DoneWatcher;
  config: RawConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Bound and order of Job starts (`creation-gate.ts`); defaults suit a real API server. */
  gate?: CreationGateOptions;
  /** Clock, epoch ms (tests). */
  now?: () => number;
}

/**
 * Returns the `execute` function of the Redis job queue: resolves when the job is done (or given up
 * on); never creates a second Job for one job id.
 * @throws PlatformError when the Kubernetes API refuses the Job (the queue logs it and moves on).
 */
export function createKubernetesExecutor(
  options: KubernetesExecutorOptions,
): (payload: JobPayload, context: ExecuteContext) => Promise<void> {
  const { jobs, watcher, config, env } = options;
  const now = options.now ?? Date.now;
  const gate = createCreationGate(options.gate);
  const budgetMs = config.kubernetes.active_deadline_seconds * 1000 + DEADLINE_MARGIN_MS;

  return async (payload, context) => {
    const log = options.logger.child({
      jobId: payload.jobId,
      platform: payload.comment.platform,
      repo: payload.comment.repoFullName,
      pr: payload.comment.prNumber,
    });
    await watcher.ready();
    // Looking the Job up (resumed) and creating it go through the gate: bounded, hand-overs first.
    const queuedAt = now();
    let gateMs = 0;
    const started = await gate.run(
      context.handover ? 'handover' : 'first',
      async () => {
        gateMs = now() - queuedAt;
        const existing = context.resumed ? await jobs.findByJobId(payload.jobId) : undefined;
        if (existing) return { name: existing.name, createdAt: existing.createdAt.getTime(), found: true };
        const createdAt = now();
        const { name } = await jobs.create(buildJobSpec(payload, config, env));
        return { name, createdAt, found: false };
      },
      context.signal,
    );
    const { name, createdAt } = started;
    // `gateMs`: how long the start waited for the API (many starts at once, or a slow API server).
    if (started.found) log.info({ job: name, gateMs }, 'resuming the wait for an existing Kubernetes Job');
    else log.info({ job: name, botType: payload.botType, gateMs }, 'Kubernetes Job created');
    const outcome = await watcher.wait(payload.jobId, {
      deadlineAt: createdAt + budgetMs,
      signal: context.signal,
      poll: async () => ((await jobs.status(name)) === 'failed' ? 'failed' : undefined),
    });
    log.info({ job: name, status: outcome.status, source: outcome.source }, 'Kubernetes Job done');
  };
}
