/**
 * Progress on the pull request (CONTRACT §18), driven the same way in every mode (in-process jobs,
 * cluster Job pods, `reviewbot review`, the GitHub Action and GitLab CI): started once the head SHA
 * is known and the job is going to run, finished with the job's outcome. A platform without
 * `startProgress`, or `review.progress: off`, shows nothing. Progress never fails or delays a job:
 * the start is not awaited by the job, every failure is logged as a warning and swallowed, and every
 * text is masked (`SecretMasker`), its mentions neutralised (`neutraliseMentions`: a check run's
 * summary is Markdown, and a failure reason may quote model text), flattened to one line where it
 * must be and cut to the platform's documented limits (`Platform.progressLimits`).
 */
import type { Logger } from '../logger.js';
import type {
  Platform,
  ProgressConclusion,
  ProgressHandle,
  ProgressReport,
  ProgressTarget,
} from '../platforms/types.js';
import type { ExecuteReviewResult } from '../review/types.js';
import { formatCost, renderReceipt } from '../review/receipt.js';
import { neutraliseMentions } from '../diff/mentions.js';
import { describeError } from '../errors.js';
import type { SecretMasker } from '../secrets.js';
import type { BotType } from './types.js';

/** `review.progress` (CONTRACT §3). */
export type ProgressSetting = 'status' | 'off';

/** A job's progress report; every method is safe to call in any order, any number of times. */
export interface JobProgress {
  /**
   * Starts the report on `target`'s head commit (the first call only). Returns at once: the API
   * call runs in the background.
   */
  start(target: ProgressTarget): void;
  /**
   * Finishes a started report with `conclusion` (the first call only; nothing when never started).
   * Waits for the start, then for the finishing call. Never throws.
   */
  finish(conclusion: ProgressConclusion, report: ProgressReport): Promise<void>;
}

/** Options of `createJobProgress`. */
export interface JobProgressOptions {
  platform: Platform;
  setting: ProgressSetting;
  botType: BotType;
  masker: SecretMasker;
  logger: Logger;
}

/** The text a report shows while the job runs. */
export function startDescription(botType: BotType): string {
  return botType === 'reviewer'
    ? 'reviewbot is reviewing this pull request'
    : 'reviewbot is working on a request';
}

/** `text` cut to `limit` characters, ending in `…` when cut. */
export function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, Math.max(0, limit - 1))}…` : text;
}

/**
 * `report` masked, its mentions neutralised and cut to the platform's limits; the summary dropped
 * where it has no place.
 */
export function fitReport(report: ProgressReport, platform: Platform, masker: SecretMasker): ProgressReport {
  const limits = platform.progressLimits ?? { description: 140, summary: 0 };
  const safe = (text: string): string => neutraliseMentions(masker.mask(text));
  const description = cut(safe(report.description).replace(/\s+/g, ' ').trim(), limits.description);
  const summary = report.summary !== undefined ? safe(report.summary) : undefined;
  return {
    description,
    ...(summary && limits.summary > 0 ? { summary: cut(summary, limits.summary) } : {}),
    ...(report.url ? { url: report.url } : {}),
  };
}

/** A progress that does nothing (`review.progress: off`, or a platform without progress). */
const NO_PROGRESS: JobProgress = { start: () => undefined, finish: () => Promise.resolve() };

/** Creates a job's progress report on `options.platform` (see the module comment). */
export function createJobProgress(options: JobProgressOptions): JobProgress {
  const { platform, masker, logger } = options;
  if (options.setting === 'off' || !platform.startProgress) return NO_PROGRESS;
  const startProgress = platform.startProgress.bind(platform);
  let started: Promise<ProgressHandle | undefined> | undefined;
  let finished = false;
  const warn = (error: unknown, what: string) =>
    logger.warn({ err: masker.mask(describeError(error)) }, `could not ${what} the progress report`);
  return {
    start(target) {
      if (started) return;
      const report = fitReport({ description: startDescription(options.botType) }, platform, masker);
      started = startProgress(target, report).catch((error: unknown) => {
        warn(error, 'start');
        return undefined;
      });
    },
    async finish(conclusion, report) {
      if (!started || finished) return;
      finished = true;
      const handle = await started;
      if (!handle) return;
      try {
        await handle.finish(conclusion, fitReport(report, platform, masker));
      } catch (error) {
        warn(error, 'finish');
      }
    },
  };
}

/** The target of a pull request's head. */
export function progressTarget(pr: {
  repoFullName: string;
  number: number;
  headSha: string;
  htmlUrl: string;
}): ProgressTarget {
  return { repoFullName: pr.repoFullName, prNumber: pr.number, headSha: pr.headSha, prUrl: pr.htmlUrl };
}

/**
 * The finished report of a review: `neutral`, one line with the findings and the cost, the receipt
 * (when there is one) as the summary, and the posted review's page as the link.
 */
export function reviewReport(result: ExecuteReviewResult, postedUrl?: string): ProgressReport {
  const findings = result.findings.length;
  const cost = result.receipt ? ` · ${formatCost(result.receipt.costUsd)}` : '';
  const description = `Reviewed: ${findings} finding${findings === 1 ? '' : 's'}${cost}`;
  return {
    description,
    summary: result.receipt ? `${description}\n\n${renderReceipt(result.receipt)}` : description,
    ...(postedUrl ? { url: postedUrl } : {}),
  };
}

/** The finished report of a failed job: the (already secret-free) reason. */
export function failureReport(botType: BotType, reason: string): ProgressReport {
  const what = botType === 'reviewer' ? 'review' : 'task';
  return { description: `The ${what} failed: ${reason}` };
}
