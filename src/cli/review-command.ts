/**
 * `reviewbot review` (seed `cli.run_review()`): resolve the pull request, `executeReview()`, print,
 * and unless `--dry-run` post the review (or its body as a comment). Thin wiring only.
 */
import { configuredModelWarnings } from '../agent/model-deprecation.js';
import { loadConfig } from '../config/load-config.js';
import { describeError, ReviewbotError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { PlatformName } from '../platforms/types.js';
import { executeReview } from '../review/execute-review.js';
import { reviewLimitsOf } from '../review/limits.js';
import { capUnenforceable } from '../review/usage-meter.js';
import { postReview, type PostedReview } from '../review/post-review.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { buildPlatform } from './build-platform.js';
import { buildRunner } from './build-runner.js';
import { parsePrRef } from './parse-pr-ref.js';
import { printReview } from './print-review.js';
import { createProgressPrinter } from './progress.js';

/** Options of `reviewbot review`. */
export interface ReviewCommandOptions {
  ref: string;
  dryRun: boolean;
  prompt?: string;
  json: boolean;
  platform?: PlatformName;
  config?: string;
}

/** Runs the review command; returns the exit code (0 ok, 1 runtime failure, 2 usage/config error). */
export async function runReviewCommand(
  options: ReviewCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createLogger({ destination: 'stderr', masker, level: env.LOG_LEVEL ?? 'warn' });
  const progress = createProgressPrinter(process.stderr);
  try {
    const ref = parsePrRef(options.ref, options.platform);
    const { config } = loadConfig({ ...(options.config ? { configFile: options.config } : {}), env });
    // Said once, on stderr, before the review starts; the review still runs (CONTRACT §3).
    const [warnings, limits] = await Promise.all([
      configuredModelWarnings(config.agent),
      reviewLimitsOf(config),
    ]);
    // The cost cap's own warning is also in the result's `warnings` (the review's meter adds it).
    const capWarning = capUnenforceable(limits.maxCostUsd, limits.rates);
    for (const warning of capWarning ? [...warnings, capWarning] : warnings) {
      process.stderr.write(`reviewbot: warning: ${warning}\n`);
    }
    const platform = await buildPlatform({
      env,
      logger,
      ...(options.platform ? { requested: options.platform } : {}),
      ...(ref.platform ? { fromRef: ref.platform } : {}),
    });
    const runner = buildRunner(config, env, masker, logger);
    const botUsernames = [config.reviewer.bot_username, config.worker.bot_username].filter(
      (n): n is string => n !== undefined,
    );

    progress({
      type: 'phase',
      phase: 'pull-request',
      message: `resolving ${ref.repoFullName}#${ref.prNumber} on ${platform.name}`,
    });
    const pullRequest = await platform.getPullRequest(ref.repoFullName, ref.prNumber);
    const outcome = await executeReview({
      platform,
      runner,
      repoFullName: ref.repoFullName,
      prNumber: ref.prNumber,
      pullRequest,
      ...(options.prompt ? { prompt: options.prompt } : {}),
      baseDir: config.workspace.base_dir,
      maxTurns: config.agent.max_turns,
      botUsernames,
      logger,
      masker,
      onEvent: progress,
      limits,
    });

    outcome.result.warnings = [...warnings, ...outcome.result.warnings];

    let posted: PostedReview | undefined;
    if (!options.dryRun) {
      progress({ type: 'phase', phase: 'filter', message: 'posting the review' });
      posted = await postReview(
        platform,
        outcome,
        { repoFullName: ref.repoFullName, prNumber: ref.prNumber },
        logger,
      );
      progress({ type: 'phase', phase: 'filter', message: `posted ${posted.kind}: ${posted.posted.url}` });
    }

    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...outcome.result, posted: posted !== undefined })}\n`);
    } else {
      printReview(outcome.result, {
        title: `${ref.repoFullName}#${ref.prNumber} "${pullRequest.title}"`,
        postedLine: posted ? `Posted as a ${posted.kind}: ${posted.posted.url}` : 'Not posted (--dry-run).',
      });
    }
    return 0;
  } catch (error) {
    const code = error instanceof ReviewbotError ? error.exitCode : 1;
    process.stderr.write(`reviewbot: ${masker.mask(describeError(error))}\n`);
    if (!(error instanceof ReviewbotError)) logger.error({ err: error }, 'unexpected error');
    return code;
  }
}
