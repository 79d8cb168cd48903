/**
 * The cluster-mode JobRunner (seed "Cluster mode behaviour"): jobs go to the Redis queue of their
 * key; the key's consumer — on whichever server replica holds its lease — creates one Kubernetes
 * Job per payload and waits for its completion signal before starting the next.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RawConfig } from '../config/schema.js';
import { ConfigError, describeError } from '../errors.js';
import type { JobRunner } from '../jobs/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { SecretMasker } from '../secrets.js';
import type { CreationGateOptions } from './creation-gate.js';
import { createKubernetesJobs, type KubernetesJobs } from './k8s/client.js';
import { withheldJobSettings } from './k8s/job-env.js';
import { createKubernetesExecutor } from './kubernetes-executor.js';
import { createDoneWatcher } from './redis/done-watcher.js';
import { createRedisJobQueue } from './redis/job-queue.js';
import { readUsageTotals } from './redis/job-usage.js';

/** Options of `createClusterJobRunner`. */
export interface ClusterRunnerOptions {
  config: RawConfig;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  metrics: Metrics;
  masker: SecretMasker;
  /** Kubernetes access (tests); default from the in-cluster service account or KUBECONFIG. */
  jobs?: KubernetesJobs;
  /** Bound and order of Job starts (benchmarks); default `creation-gate.ts`'s. */
  gate?: CreationGateOptions;
}

/** The cluster JobRunner plus its start-up (resume pending keys) and its connections' closing. */
export interface ClusterJobRunner extends JobRunner {
  start(): Promise<void>;
}

/**
 * Checks the cluster-mode requirements of the seed: `store.url` and `agent.provider` are required.
 * @throws ConfigError naming each missing key (exit code 2).
 */
export function checkClusterConfig(config: RawConfig): void {
  const problems: string[] = [];
  if (!config.store.url)
    problems.push('store.url (STORE_URL): required in cluster mode (kubernetes.image is set)');
  if (!config.agent.provider) {
    problems.push(
      'agent.provider (AGENT_PROVIDER): required in cluster mode; Job pods call the provider API',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

function connect(url: string, role: string, logger: Logger, masker: SecretMasker): Redis {
  // Auto-pipelining sends the commands of one event-loop tick in one write: under a burst of
  // completions the queue's many small commands otherwise cost a syscall each.
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    enableAutoPipelining: role !== 'subscriber',
  });
  redis.on('error', (error: Error) =>
    logger.warn({ role, err: masker.mask(error.message) }, 'store connection error'),
  );
  return redis;
}

/** Creates the cluster JobRunner; call `start()` once the server listens. */
export function createClusterJobRunner(options: ClusterRunnerOptions): ClusterJobRunner {
  const { config, env, logger, masker } = options;
  checkClusterConfig(config);
  const url = config.store.url as string;
  for (const name of withheldJobSettings(config, env)) {
    logger.warn(
      { setting: name },
      `${name} holds a password: Job pods must get it from a Secret in kubernetes.env_from_secrets`,
    );
  }
  const jobs = options.jobs ?? createKubernetesJobs({ namespace: config.kubernetes.namespace, env });
  const subscriber = connect(url, 'subscriber', logger, masker);
  const commands = connect(url, 'commands', logger, masker);
  const watcher = createDoneWatcher(subscriber, commands, { logger });
  // `/metrics` adds the Job pods' tokens and cost, read from the store at scrape time.
  options.metrics.addTotalsSource(() => readUsageTotals(commands));
  const queue = createRedisJobQueue({
    redis: () => connect(url, 'queue', logger, masker),
    ownerId: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
    execute: createKubernetesExecutor({ jobs, watcher, config, env, logger, gate: options.gate }),
    logger,
    metrics: options.metrics,
  });
  return {
    submit: (payload, submitOptions) => queue.submit(payload, submitOptions),
    depth: () => queue.depth(),
    start: () => queue.start(),
    async shutdown(timeoutMs) {
      const dropped = await queue.shutdown(timeoutMs);
      await watcher
        .close()
        .catch((error: unknown) => logger.warn({ err: describeError(error) }, 'done watcher close failed'));
      subscriber.disconnect();
      commands.disconnect();
      return dropped;
    },
  };
}
