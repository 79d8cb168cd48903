/**
 * `reviewbot run-job` (CONTRACT §2, seed "Cluster mode behaviour"): the Job pod's entry point.
 * Reads the JobPayload (`REVIEWBOT_JOB_PAYLOAD`, or `--payload-file`), loads the conversation from
 * the store, runs the REVIEWER or WORKER job with the provider API runner, posts the results,
 * saves the conversation, and publishes the completion signal — also on failure. Exit 0 when the
 * job succeeded, 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { publishDone } from '../cluster/redis/done-signal.js';
import { recordJobUsage } from '../cluster/redis/job-usage.js';
import { createRedisConversationStore } from '../cluster/redis/conversation-store.js';
import { configuredModelWarnings } from '../agent/model-deprecation.js';
import { loadConfig } from '../config/load-config.js';
import { setSpareTreesByDefault, spareBuildsSettled } from '../workspace/spare-tree.js';
import { ConfigError, describeError, UsageError } from '../errors.js';
import { parseJobPayload } from '../jobs/payload.js';
import { runJob } from '../jobs/run-job.js';
import { LEARNING_LIMITS } from '../learnings/types.js';
import { createRedisLearningsStore } from '../learnings/redis-store.js';
import type { JobPayload, JobResult } from '../jobs/types.js';
import { createLogger, type Logger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { buildPlatforms } from '../platforms/index.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { createUsageTally } from '../usage-totals.js';
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import { buildRunner } from './build-runner.js';

/** Options of `reviewbot run-job`. */
export interface RunJobCommandOptions {
  payloadFile?: string;
}

async function readPayload(options: RunJobCommandOptions, env: NodeJS.ProcessEnv): Promise<JobPayload> {
  if (options.payloadFile) return parseJobPayload(await readFile(options.payloadFile, 'utf8'));
  const text = env.REVIEWBOT_JOB_PAYLOAD;
  if (!text) throw new UsageError('no job payload: set REVIEWBOT_JOB_PAYLOAD or pass --payload-file');
  return parseJobPayload(text);
}

/** The store connection `setUpAndRun` opened, for publishing the completion signal afterwards. */
interface StoreHolder {
  redis?: Redis;
}

/**
 * Loads the configuration, connects to the store and runs the job (`runJob` never throws).
 * @throws ConfigError without `store.url` or `agent.provider`; the store's or a platform's error.
 */
async function setUpAndRun(
  payload: JobPayload,
  env: NodeJS.ProcessEnv,
  masker: SecretMasker,
  log: Logger,
  holder: StoreHolder,
): Promise<JobResult> {
  const { config } = loadConfig({ env });
  if (!config.store.url) throw new ConfigError(['store.url (STORE_URL): required by run-job']);
  // §19: on a shared volume the next pod of the repository takes the spare checkout this one
  // builds; with a pod's own emptyDir a spare would die with it.
  setSpareTreesByDefault(config.workspace.shared_dir !== undefined);
  if (!config.agent.provider)
    throw new ConfigError(['agent.provider (AGENT_PROVIDER): required in cluster mode']);
  for (const warning of await configuredModelWarnings(config.agent)) log.warn(warning);
  const redis = new Redis(config.store.url, { maxRetriesPerRequest: 5, lazyConnect: true });
  holder.redis = redis;
  redis.on('error', (error: Error) =>
    log.warn({ err: masker.mask(error.message) }, 'store connection error'),
  );
  await redis.connect();
  const sandbox = await setUpToolSandbox(config.agent, log);
  const platforms = await buildPlatforms({ env, logger: log });
  const runner = buildRunner(config, env, masker, log, { sandbox });
  // The job's tokens, cost and findings go to the store once per job id, for the server's /metrics.
  const metrics = createMetrics({ defaultMetrics: false });
  const tally = createUsageTally();
  const result = await runJob(payload, {
    platforms,
    createRunner: () => runner,
    sandbox,
    config,
    store: createRedisConversationStore(redis, { ttlSeconds: config.store.key_ttl_seconds, logger: log }),
    metrics: {
      ...metrics,
      reviewReceipt: (receipt) => {
        metrics.reviewReceipt(receipt);
        tally.reviewReceipt(receipt);
      },
      agentTokens: (botType, usage) => {
        metrics.agentTokens(botType, usage);
        tally.agentTokens(botType, usage);
      },
      findings: (platform, severity, outcome, count) => {
        metrics.findings(platform, severity, outcome, count);
        tally.findings(platform, severity, outcome, count);
      },
    },
    logger: log,
    masker,
    learnings: createRedisLearningsStore(redis, { maxPerRepository: LEARNING_LIMITS.maxPerRepository }),
  });
  const totals = tally.totals();
  if (Object.keys(totals).length > 0) {
    try {
      const recorded = await recordJobUsage(redis, payload.jobId, totals, config.store.key_ttl_seconds);
      if (!recorded) log.info('usage of this job id was recorded before (a retried Job); not counted again');
    } catch (error) {
      log.warn({ err: masker.mask(describeError(error)) }, 'could not record the job usage');
    }
  }
  return result;
}

/**
 * Resolves `failed` on SIGTERM — Kubernetes stops a pod with it at the active deadline or when its
 * Job is deleted, and SIGKILLs it after the grace period — so the completion signal still goes out
 * and the server moves on at once. Call the returned `dispose` when the job ends.
 */
function onSigterm(log: Logger): { terminated: Promise<JobResult>; dispose(): void } {
  let listener: (() => void) | undefined;
  const terminated = new Promise<JobResult>((resolve) => {
    listener = () => {
      log.warn('SIGTERM: the job was stopped before it finished');
      resolve({ status: 'failed', error: 'stopped by SIGTERM' });
    };
    process.once('SIGTERM', listener);
  });
  return {
    terminated,
    dispose: () => {
      if (listener) process.off('SIGTERM', listener);
    },
  };
}

/** Runs one job; resolves with the exit code (0 succeeded, 1 failed). */
export async function runJobCommand(
  options: RunJobCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createLogger({ destination: 'stderr', masker });
  let payload: JobPayload;
  try {
    payload = await readPayload(options, env);
  } catch (error) {
    logger.error({ err: masker.mask(describeError(error)) }, 'cannot read the job payload');
    return 1;
  }
  const log = logger.child({
    jobId: payload.jobId,
    platform: payload.comment.platform,
    repo: payload.comment.repoFullName,
    pr: payload.comment.prNumber,
  });
  const holder: StoreHolder = {};
  const sigterm = onSigterm(log);
  let result: JobResult;
  try {
    result = await Promise.race([
      setUpAndRun(payload, env, masker, log, holder).catch((error: unknown): JobResult => {
        // Set-up failed before the job could run (config, store, platform): runJob never throws.
        log.error({ err: masker.mask(describeError(error)) }, 'job could not start');
        return { status: 'failed', error: describeError(error) };
      }),
      sigterm.terminated,
    ]);
  } finally {
    sigterm.dispose();
  }
  let redis = holder.redis;
  try {
    if (!redis && env.STORE_URL) {
      redis = new Redis(env.STORE_URL, { maxRetriesPerRequest: 5 });
      redis.on('error', () => undefined);
    }
    if (redis) await publishDone(redis, { jobId: payload.jobId, status: result.status });
    else log.error('no store to publish the completion signal to');
  } catch (error) {
    log.error({ err: masker.mask(describeError(error)) }, 'could not publish the completion signal');
  } finally {
    redis?.disconnect();
  }
  log.info({ status: result.status }, 'job finished');
  // §19: the spare checkout on the shared volume is finished (the job is already reported done):
  // the process exits at once after this, and a half-built spare would only be litter.
  await spareBuildsSettled();
  return result.status === 'succeeded' ? 0 : 1;
}
