/**
 * `reviewbot serve` (CONTRACT §2, seed "Webhook server"): wires configuration, platforms, the job
 * runner (in-process queue, or Redis + Kubernetes Jobs when `kubernetes.image` is set), the
 * workspace cleaner and the HTTP server together, then runs until SIGTERM/SIGINT, when it stops
 * accepting, lets running jobs finish for up to 60 s, logs dropped jobs and exits 0.
 */
import { bareAccessWarning } from '../config/access.js';
import { loadConfig } from '../config/load-config.js';
import type { RawConfig } from '../config/schema.js';
import { ConfigError, describeError, ReviewbotError } from '../errors.js';
import { createWorkspaceCleaner } from '../jobs/cleaner.js';
import { setSpareTreesByDefault, stopSpareBuilds } from '../workspace/spare-tree.js';
import { createMemoryConversationStore } from '../jobs/conversation-store.js';
import { createDispatcher } from '../jobs/handle-comment.js';
import { createInProcessJobRunner, type InProcessJobRunner } from '../jobs/in-process-runner.js';
import { runJob, type JobContext } from '../jobs/run-job.js';
import type { JobRunner } from '../jobs/types.js';
import { openLearningsStore } from '../learnings/index.js';
import { createLogger, type Logger } from '../logger.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { buildPlatforms } from '../platforms/index.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { createServer } from '../server/app.js';
import { configuredModelWarnings } from '../agent/model-deprecation.js';
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import { costCapWarnings } from '../review/limits.js';
import { buildRunner } from './build-runner.js';
import { PLATFORM_VARIABLES } from './platform-variables.js';

/** How long running jobs may take to finish after SIGTERM (CONTRACT §12), ms. */
export const SHUTDOWN_GRACE_MS = 60_000;

/** Options of `reviewbot serve`. */
export interface ServeCommandOptions {
  config?: string;
}

/** A job runner of either mode, with the optional extras of each. */
type ServeJobRunner = JobRunner & {
  start?: () => Promise<void>;
  isBusy?: InProcessJobRunner['isBusy'];
};

function checkServeConfig(config: RawConfig, platforms: Map<PlatformName, Platform>): void {
  const problems: string[] = [];
  if (platforms.size === 0) {
    problems.push(
      `no platform is configured: set ${Object.values(PLATFORM_VARIABLES)
        .map((vars) => vars.credentials)
        .join(', or ')}`,
    );
  }
  for (const platform of platforms.values()) {
    if (!platform.webhook) {
      problems.push(
        `${PLATFORM_VARIABLES[platform.name].webhookSecret}: required by serve for the ${platform.name} platform`,
      );
    }
  }
  if (!config.reviewer.bot_username && !config.worker.bot_username) {
    problems.push(
      'reviewer.bot_username or worker.bot_username: at least one bot username is required by serve',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * The standalone JobRunner: an in-process queue running jobs with the configured agent runner,
 * whose code is loaded before this resolves (so no webhook waits for it to compile).
 */
async function createStandaloneRunner(
  config: RawConfig,
  env: NodeJS.ProcessEnv,
  platforms: Map<PlatformName, Platform>,
  deps: { logger: Logger; metrics: Metrics; masker: SecretMasker; signal: AbortSignal },
): Promise<InProcessJobRunner> {
  const sandbox = await setUpToolSandbox(config.agent, deps.logger);
  const runner = buildRunner(config, env, deps.masker, deps.logger, { sandbox });
  await runner.preload();
  // §20: one learnings store for the process (Redis of store.url, else <base_dir>/.learnings).
  const learnings = await openLearningsStore({
    ...(config.store.url ? { storeUrl: config.store.url } : {}),
    baseDir: config.workspace.base_dir,
  });
  const context: JobContext = {
    platforms,
    createRunner: () => runner,
    sandbox,
    config,
    store: createMemoryConversationStore(),
    learnings,
    ...deps,
  };
  return createInProcessJobRunner({
    maxConcurrentJobs: config.webhook.max_concurrent_jobs,
    execute: (payload) => runJob(payload, context),
    logger: deps.logger,
    metrics: deps.metrics,
  });
}

/**
 * Asks each platform who the bot is: its logins (`getBotUsernames`) and the names that mention it
 * besides the configured ones (`getBotMentionNames`, per platform). A failure is logged once per
 * platform and the configured usernames still apply.
 */
async function resolveBotIdentities(
  platforms: Map<PlatformName, Platform>,
  logger: Logger,
): Promise<{ names: string[]; mentions: Partial<Record<PlatformName, string[]>> }> {
  const names: string[] = [];
  const mentions: Partial<Record<PlatformName, string[]>> = {};
  await Promise.all(
    [...platforms.values()].map(async (platform) => {
      try {
        names.push(...(await platform.getBotUsernames()));
        const aliases = (await platform.getBotMentionNames?.()) ?? [];
        if (aliases.length > 0) mentions[platform.name] = aliases;
      } catch (error) {
        logger.warn(
          { platform: platform.name, err: describeError(error) },
          'could not identify the bot account',
        );
      }
    }),
  );
  return { names, mentions };
}

/** Runs the server until a signal; resolves with the exit code. */
export async function runServeCommand(
  options: ServeCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createLogger({ destination: 'stdout', masker });
  const metrics = createMetrics();
  const shutdownController = new AbortController();
  let config: RawConfig;
  let platforms: Map<PlatformName, Platform>;
  let jobRunner: ServeJobRunner;
  try {
    config = loadConfig({ ...(options.config ? { configFile: options.config } : {}), env }).config;
    platforms = await buildPlatforms({ env, logger });
    checkServeConfig(config, platforms);
    for (const warning of await configuredModelWarnings(config.agent)) logger.warn(warning);
    for (const warning of await costCapWarnings(config)) logger.warn(warning);
    const bareAccess = bareAccessWarning(config.access, [...platforms.keys()]);
    if (bareAccess) logger.warn(bareAccess);
    // The Kubernetes client is large (~80 MB resident): load it only in cluster mode.
    jobRunner = config.kubernetes.image
      ? (await import('../cluster/cluster-runner.js')).createClusterJobRunner({
          config,
          env,
          logger,
          metrics,
          masker,
        })
      : await createStandaloneRunner(config, env, platforms, {
          logger,
          metrics,
          masker,
          signal: shutdownController.signal,
        });
  } catch (error) {
    process.stderr.write(`reviewbot: ${masker.mask(describeError(error))}\n`);
    return error instanceof ReviewbotError ? error.exitCode : 1;
  }
  const mode = config.kubernetes.image ? 'cluster' : 'standalone';

  const { names: botIdentities, mentions: botMentionNames } = await resolveBotIdentities(platforms, logger);
  const dispatch = createDispatcher({
    rules: {
      ...(config.reviewer.bot_username ? { reviewerUsername: config.reviewer.bot_username } : {}),
      ...(config.worker.bot_username ? { workerUsername: config.worker.bot_username } : {}),
      botIdentities,
      botMentionNames,
      allowedRepos: config.access.allowed_repos,
      triggers: config.reviewer.triggers,
    },
    allowedUsers: config.access.allowed_users,
    jobRunner,
    logger,
  });
  // With a store, webhook copies that reach different replicas are de-duplicated there too.
  const sharedDedupe = config.store.url
    ? (await import('../cluster/redis/webhook-claims.js')).connectWebhookClaims(config.store.url, {
        ttlSeconds: config.store.key_ttl_seconds,
        logger,
        masker,
      })
    : undefined;
  const server = createServer({
    platforms,
    dispatch,
    metrics,
    logger,
    ...(sharedDedupe ? { sharedDedupe } : {}),
  });
  server.addHook('onClose', async () => sharedDedupe?.close());
  // Cluster Job pods keep their workspaces in emptyDir volumes, unless they share a volume
  // (CONTRACT §19, `workspace.shared_dir`): then the server, which mounts it too, cleans there.
  const cleanDir = mode === 'standalone' ? config.workspace.base_dir : config.workspace.shared_dir;
  // §19: a long-lived process running jobs on a lasting base directory keeps spare checkouts.
  if (mode === 'standalone') setSpareTreesByDefault(true);
  const cleaner =
    cleanDir !== undefined
      ? createWorkspaceCleaner({
          baseDir: cleanDir,
          platforms,
          intervalHours: config.workspace.cleanup_interval_hours,
          logger,
          isBusy: (_dir, workspace) =>
            jobRunner.isBusy?.(workspace.platform, workspace.repoFullName, workspace.prNumber) ?? false,
        })
      : undefined;

  try {
    await server.listen({ host: config.webhook.host, port: config.webhook.port });
  } catch (error) {
    process.stderr.write(
      `reviewbot: cannot listen on ${config.webhook.host}:${config.webhook.port}: ${describeError(error)}\n`,
    );
    await jobRunner.shutdown(0);
    return 1;
  }
  // Cluster mode: resume every queue key that still has jobs (from before a restart, or of a dead replica).
  await jobRunner.start?.();
  const bound = server.server.address();
  logger.info(
    {
      host: config.webhook.host,
      // The port bound (with `webhook.port` 0, the one the kernel chose).
      port: typeof bound === 'object' && bound ? bound.port : config.webhook.port,
      mode,
      platforms: [...platforms.keys()],
      botIdentities,
    },
    'reviewbot serve listening',
  );
  if (cleaner) {
    // Start-up cleanup runs in the background: stale workspaces of a previous run go at once.
    void cleaner
      .runOnce()
      .catch((error: unknown) => logger.warn({ err: describeError(error) }, 'workspace cleanup failed'));
    cleaner.start();
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal, running: jobRunner.depth() }, 'shutting down: no new webhooks, draining jobs');
  cleaner?.stop();
  const closing = server.close();
  const dropped = await jobRunner.shutdown(SHUTDOWN_GRACE_MS);
  shutdownController.abort();
  await stopSpareBuilds();
  for (const job of dropped) {
    logger.warn(
      {
        jobId: job.jobId,
        platform: job.comment.platform,
        repo: job.comment.repoFullName,
        pr: job.comment.prNumber,
      },
      'job dropped at shutdown',
    );
  }
  await closing;
  logger.info('reviewbot serve stopped');
  return 0;
}
