/**
 * `runJob()`: the one entry point that runs a JobPayload, in-process (standalone) or in a cluster
 * Job pod. Dispatches by bot type, times the job, records metrics, and turns any failure into a
 * short, secret-free reply on the pull request and a `failed` result. Never throws.
 */
import { neutraliseMentions } from '../diff/mentions.js';
import { describeError } from '../errors.js';
import { parseLearningCommand } from '../learnings/commands.js';
import { neutraliseMarkers } from '../review/memory/markers.js';
import type { SecretMasker } from '../secrets.js';
import type { JobContext } from './job-context.js';
import { processApplyCommand } from './apply/apply-job.js';
import { parseApplyCommand } from './apply/command.js';
import { processLearningCommand } from './learning-job.js';
import { placeInThread } from './place-in-thread.js';
import { parseOverrideCommand, processOverrideCommand } from './override-job.js';
import { createJobProgress, failureReport, reviewReport, type JobProgress } from './progress.js';
import { replyTargetOf } from './reply-target.js';
import { processReviewerComment } from './reviewer-job.js';
import type { BotType, JobPayload, JobResult } from './types.js';
import { processWorkerComment } from './worker-job.js';
import type { WorkerResult } from './worker-reply.js';

export type { JobContext } from './job-context.js';

/** Longest failure reason shown on a pull request, characters. */
const MAX_REASON = 400;

/**
 * A one-line, secret-free reason for `error`: `describeError` masked by `masker`, whitespace
 * collapsed, cut to 400 characters. Never a stack trace.
 */
export function failureReason(error: unknown, masker: SecretMasker): string {
  const text = masker.mask(describeError(error)).replace(/\s+/g, ' ').trim() || 'unknown error';
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

/**
 * The comment posted when a job fails, e.g. "reviewbot could not finish this review: …"; marker-shaped
 * text and mentions in the reason (an error may quote the pull request or the model) are
 * neutralised (§13, issue 27).
 */
export function failureReplyBody(botType: BotType, reason: string): string {
  const what = botType === 'reviewer' ? 'this review' : 'this task';
  return `reviewbot could not finish ${what}: ${neutraliseMentions(neutraliseMarkers(reason))}`;
}

/** One line about a finished WORKER job for its progress report. */
function workerDescription(result: WorkerResult): string {
  if (result.kind === 'pushed') return `Done: pushed ${result.sha.slice(0, 12)}`;
  if (result.kind === 'fork') return 'Done: changes not pushed (the branch is in a fork)';
  return 'Done: no changes';
}

/**
 * Runs `payload` and returns how it ended. REVIEWER → `processReviewerComment`, WORKER →
 * `processWorkerComment`; the job's log lines carry `jobId`, `platform`, `repo`, `pr`, `botType`.
 * Records `metrics.job(botType, result, durationMs)`. Drives the job's progress report (§18,
 * `progress.ts`): started by the job once it knows the head, finished here. A mention the event did
 * not place in its inline thread is placed first (`placeInThread`). On any error: logs it, posts
 * `failureReplyBody` in the mention's thread (a failure to post is only logged) and returns
 * `{ status: 'failed', error: reason }`; a WORKER that fails before its push has pushed nothing.
 */
export async function runJob(payload: JobPayload, ctx: JobContext): Promise<JobResult> {
  const started = Date.now();
  let { comment } = payload;
  const logger = ctx.logger.child({
    jobId: payload.jobId,
    platform: comment.platform,
    repo: comment.repoFullName,
    pr: comment.prNumber,
    botType: payload.botType,
  });
  // The job's own least-privilege token (CONTRACT §16), for its progress and failure reply too.
  const base = ctx.platforms.get(comment.platform);
  const platform = base?.forJob?.(comment.repoFullName, payload.botType) ?? base;
  const progress: JobProgress | undefined = platform
    ? createJobProgress({
        platform,
        setting: ctx.config.review.progress ?? 'status',
        botType: payload.botType,
        masker: ctx.masker,
        logger,
      })
    : undefined;
  const jobCtx: JobContext = { ...ctx, logger, ...(progress ? { progress } : {}) };
  logger.info({ eventType: comment.eventType, enqueuedAt: payload.enqueuedAt }, 'job started');
  try {
    // §20: a REVIEWER mention starting with learn/remember/forget is a command, not a review;
    // §21: so is `override <reason>`.
    const command = payload.botType === 'reviewer' ? parseLearningCommand(payload.prompt) : undefined;
    const override = payload.botType === 'reviewer' ? parseOverrideCommand(payload.prompt) : undefined;
    // A mention in an inline thread the event did not name is answered in that thread (a learning
    // command places itself).
    if (!command && platform) comment = await placeInThread(platform, comment, logger);
    const placed: JobPayload = { ...payload, comment };
    if (command) await processLearningCommand(payload, command, jobCtx);
    else if (override) await processOverrideCommand(placed, override, jobCtx);
    else if (payload.botType === 'reviewer') {
      const outcome = await processReviewerComment(placed, jobCtx);
      await progress?.finish('neutral', reviewReport(outcome.review.result, outcome.posted?.posted.url));
    } else if (payload.botType === 'worker') {
      // §24: `apply` in a finding's thread (or `apply all`) applies findings; else an ordinary task.
      const apply = parseApplyCommand(payload.prompt);
      const outcome =
        (apply && (await processApplyCommand(placed, apply, jobCtx))) ||
        (await processWorkerComment(placed, jobCtx));
      await progress?.finish('success', {
        description: workerDescription(outcome.result),
        url: outcome.posted.url,
      });
    } else throw new Error(`unknown bot type ${JSON.stringify(payload.botType)}`);
    const durationMs = Date.now() - started;
    ctx.metrics.job(payload.botType, 'succeeded', durationMs);
    logger.info({ durationMs }, 'job succeeded');
    return { status: 'succeeded' };
  } catch (error) {
    const durationMs = Date.now() - started;
    const reason = failureReason(error, ctx.masker);
    ctx.metrics.job(String(payload.botType), 'failed', durationMs);
    logger.error({ durationMs, error: reason, errorType: (error as Error)?.name }, 'job failed');
    await progress?.finish('failure', failureReport(payload.botType, reason));
    if (platform) {
      try {
        await platform.postReply(replyTargetOf(comment), failureReplyBody(payload.botType, reason));
      } catch (postError) {
        logger.warn({ error: failureReason(postError, ctx.masker) }, 'could not post the failure reply');
      }
    }
    return { status: 'failed', error: reason };
  }
}
