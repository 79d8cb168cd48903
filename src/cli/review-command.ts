/**
 * `reviewbot review` (seed `cli.run_review()`, CONTRACT §2 and §17): resolve the pull request,
 * `executeReview()`, print, and unless `--dry-run` post the review (or its body as a comment); with
 * `--local`, review the current repository's changes instead (`local-review.ts`). Thin wiring only.
 */
import { configuredModelWarnings } from '../agent/model-deprecation.js';
import { loadConfig } from '../config/load-config.js';
import { describeError, ReviewbotError, UsageError } from '../errors.js';
import { createCliLogger, type Logger } from '../logger.js';
import type { PlatformName, PullRequestInfo } from '../platforms/types.js';
import { openLearningsStore } from '../learnings/index.js';
import { executeReview, type ReviewEvent, type ReviewOutcome } from '../review/execute-review.js';
import { reviewLimitsOf } from '../review/limits.js';
import { verifySettingsOf } from '../review/stages/verify.js';
import type { ReviewTrigger } from '../review/memory/index.js';
import { capUnenforceable } from '../review/usage-meter.js';
import { postReview, type PostedReview } from '../review/post-review.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { failureReason } from '../jobs/run-job.js';
import { createJobProgress, failureReport, progressTarget, reviewReport } from '../jobs/progress.js';
import { showVerdictGate } from '../jobs/gate.js';
import { buildPlatform } from './build-platform.js';
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import { buildRunner } from './build-runner.js';
import { runLocalReview } from './local-review.js';
import { misplacedRulesWarning } from './misplaced-rules.js';
import { parsePrRef, type PrRef } from './parse-pr-ref.js';
import { printReview } from './print-review.js';
import { createProgressPrinter } from './progress.js';
import { failOnExitCode } from './fail-on.js';
import type { Severity } from '../review/severity/severity.js';

/** Output formats of `reviewbot review --format` (`sarif` only with `--local`). */
export type ReviewOutputFormat = 'text' | 'json' | 'sarif';

/** Options of `reviewbot review`. */
export interface ReviewCommandOptions {
  /** The pull request reference; absent with `--local` (and a usage error without it). */
  ref?: string;
  dryRun: boolean;
  prompt?: string;
  /** `--json`: same as `format: 'json'`. */
  json: boolean;
  platform?: PlatformName;
  config?: string;
  /** `--local`: review the current git repository's changes, no platform (§17). */
  local?: boolean;
  /** `--base REF` (with `--local`). */
  base?: string;
  format?: ReviewOutputFormat;
  /**
   * `--trigger`: `lifecycle` behaves like a pull request event (on a head the bot already reviewed,
   * or with no reviewable change since, no agent runs and nothing is posted; CONTRACT §13);
   * `request` (default) like a person asking.
   */
  trigger?: ReviewTrigger;
  /**
   * `--fail-on`: exit 3 (after printing or posting) when the verdict counts an open finding at or
   * above this severity (CONTRACT §21).
   */
  failOn?: Severity;
}

/** The accepted forms of `<ref>`, as said by every usage error about it (CONTRACT §2). */
export const EXPECTED_REF_FORM =
  'expected owner/repo#N (GitLab: group/subgroup/project#N) or a pull/merge request URL, or --local';

/**
 * Checks the combination of options before anything else runs (no config, no network).
 * @returns the output format.
 * @throws UsageError (exit 2) naming the expected form or the conflicting options.
 */
export function checkReviewUsage(options: ReviewCommandOptions): ReviewOutputFormat {
  const format = options.format ?? (options.json ? 'json' : 'text');
  if (options.json && options.format !== undefined && options.format !== 'json') {
    throw new UsageError(`--json conflicts with --format ${options.format}`);
  }
  if (options.local) {
    if (options.ref !== undefined) {
      throw new UsageError(`--local reviews the current repository: drop the reference "${options.ref}"`);
    }
    if (options.platform) throw new UsageError('--local uses no platform: drop --platform');
    if (options.trigger) throw new UsageError('--local has no review memory: drop --trigger');
    return format;
  }
  if (options.base !== undefined) throw new UsageError('--base needs --local');
  if (format === 'sarif') throw new UsageError('--format sarif needs --local');
  if (options.ref === undefined || options.ref.trim() === '') {
    throw new UsageError(`missing pull request reference: ${EXPECTED_REF_FORM}`);
  }
  return format;
}

/**
 * A pull request review that ran (and was posted unless `dryRun`), or, when `outcome.skipped`, a
 * lifecycle trigger that found nothing new to review: no agent ran and nothing was posted.
 */
export interface PullRequestReview {
  ref: PrRef;
  pullRequest: PullRequestInfo;
  outcome: ReviewOutcome;
  posted?: PostedReview;
}

/**
 * What to say about a skipped review (`outcome.skipped`): `nothing new to review since <sha>`,
 * the head of the bot's previous review shortened to 12 characters.
 */
export function skippedMessage(outcome: ReviewOutcome): string {
  const since = outcome.result.incremental?.sinceSha;
  return `nothing new to review since ${since ? since.slice(0, 12) : 'the previous review'}: no agent ran, nothing posted`;
}

/** What `reviewPullRequest` needs besides the command's options. */
export interface ReviewDeps {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  masker: SecretMasker;
  onEvent: (event: ReviewEvent) => void;
}

/**
 * The review flow without printing: parse the ref, load the configuration, build the platform and
 * runner, review (as `options.trigger`, default `request`), and post unless `dryRun` or the review
 * was skipped (`outcome.skipped`: a lifecycle trigger with nothing new to review). Used by `reviewbot review` and the GitHub Action.
 * @throws UsageError / ConfigError (exit 2); AuthError, PlatformError, GitError, AgentError (exit 1).
 */
export async function reviewPullRequest(
  options: Omit<ReviewCommandOptions, 'ref'> & { ref: string },
  deps: ReviewDeps,
): Promise<PullRequestReview> {
  const { env, logger, masker, onEvent: progressEvent } = deps;
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
  const anyRepoPlatform = await buildPlatform({
    env,
    logger,
    ...(options.platform ? { requested: options.platform } : {}),
    ...(ref.platform ? { fromRef: ref.platform } : {}),
  });
  // A REVIEWER: the App token is minted for this repository with read-only contents (§16).
  const platform = anyRepoPlatform.forJob?.(ref.repoFullName, 'reviewer') ?? anyRepoPlatform;
  const sandbox = await setUpToolSandbox(config.agent, logger);
  const runner = buildRunner(config, env, masker, logger, { sandbox });
  const botUsernames = [config.reviewer.bot_username, config.worker.bot_username].filter(
    (n): n is string => n !== undefined,
  );

  progressEvent({
    type: 'phase',
    phase: 'pull-request',
    message: `resolving ${ref.repoFullName}#${ref.prNumber} on ${platform.name}`,
  });
  const pullRequest = await platform.getPullRequest(ref.repoFullName, ref.prNumber);
  // §20: the same learnings as the server's (the store of store.url, else <base_dir>/.learnings).
  const learnings = await openLearningsStore({
    ...(config.store.url ? { storeUrl: config.store.url } : {}),
    baseDir: config.workspace.base_dir,
  });
  // A dry run writes nothing to the pull request, not even its progress (§18).
  const progress = createJobProgress({
    platform,
    setting: options.dryRun ? 'off' : config.review.progress,
    botType: 'reviewer',
    masker,
    logger,
  });
  let outcome: ReviewOutcome;
  let posted: PostedReview | undefined;
  try {
    outcome = await executeReview({
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
      onEvent: progressEvent,
      limits,
      reviewSettings: config.review,
      ...(options.trigger ? { trigger: options.trigger } : {}),
      onReviewing: (pr) => progress.start(progressTarget(pr)),
      learnings: { store: learnings, allowedUsers: config.access.allowed_users },
      verify: verifySettingsOf(config),
      sandbox,
    });

    outcome.result.warnings = [...warnings, ...outcome.result.warnings];

    const gate = { platform, setting: options.dryRun ? 'off' : config.review.gate, masker, logger } as const;
    const reviewer = config.reviewer.bot_username;
    // A redundant lifecycle trigger posts nothing, not even a "Nothing to review" comment (§13);
    // a new head with nothing to review still gets the gate of its open findings (§21).
    if (outcome.skipped) {
      if (outcome.result.incremental?.mode === 'incremental') {
        await showVerdictGate(gate, pullRequest, outcome.result.verdict, reviewer ? { reviewer } : {});
      }
      return { ref, pullRequest, outcome };
    }
    if (!options.dryRun) {
      progressEvent({ type: 'phase', phase: 'filter', message: 'posting the review' });
      posted = await postReview(
        platform,
        outcome,
        { repoFullName: ref.repoFullName, prNumber: ref.prNumber },
        logger,
      );
      progressEvent({
        type: 'phase',
        phase: 'filter',
        message: `posted ${posted.kind}: ${posted.posted.url}`,
      });
      await showVerdictGate(gate, outcome.pullRequest, outcome.result.verdict, {
        url: posted.posted.url,
        ...(reviewer ? { reviewer } : {}),
      });
    }
  } catch (error) {
    await progress.finish('failure', failureReport('reviewer', failureReason(error, masker)));
    throw error;
  } finally {
    await learnings.close().catch(() => undefined);
  }
  await progress.finish('neutral', reviewReport(outcome.result, posted?.posted.url));
  return { ref, pullRequest, outcome, ...(posted ? { posted } : {}) };
}

/**
 * Runs the review command; returns the exit code (0 ok, 1 runtime failure, 2 usage/config error,
 * 3 `--fail-on` and the verdict counts an open finding at or above it).
 */
export async function runReviewCommand(
  options: ReviewCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createCliLogger(env, masker);
  const progress = createProgressPrinter(process.stderr);
  try {
    const format = checkReviewUsage(options);
    const misplaced = misplacedRulesWarning({
      ...(options.config ? { configFile: options.config } : {}),
      env,
    });
    if (misplaced) process.stderr.write(`reviewbot: warning: ${misplaced}\n`);
    if (options.local) {
      return await runLocalReview(
        {
          format,
          ...(options.base !== undefined ? { base: options.base } : {}),
          ...(options.prompt ? { prompt: options.prompt } : {}),
          ...(options.config ? { config: options.config } : {}),
          ...(options.failOn ? { failOn: options.failOn } : {}),
        },
        { env, logger, masker, onEvent: progress },
      );
    }
    const { ref, pullRequest, outcome, posted } = await reviewPullRequest(
      { ...options, ref: options.ref ?? '' },
      { env, logger, masker, onEvent: progress },
    );
    if (outcome.skipped) process.stderr.write(`reviewbot: ${skippedMessage(outcome)}\n`);
    if (format === 'json') {
      process.stdout.write(`${JSON.stringify({ ...outcome.result, posted: posted !== undefined })}\n`);
    } else if (!outcome.skipped) {
      printReview(outcome.result, {
        title: `${ref.repoFullName}#${ref.prNumber} "${pullRequest.title}"`,
        postedLine: posted ? `Posted as a ${posted.kind}: ${posted.posted.url}` : 'Not posted (--dry-run).',
      });
    }
    return failOnExitCode(outcome.result.verdict, options.failOn);
  } catch (error) {
    const code = error instanceof ReviewbotError ? error.exitCode : 1;
    process.stderr.write(`reviewbot: ${masker.mask(describeError(error))}\n`);
    if (!(error instanceof ReviewbotError)) logger.error({ err: error }, 'unexpected error');
    return code;
  }
}
