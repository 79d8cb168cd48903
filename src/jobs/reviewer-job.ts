/**
 * The REVIEWER job (seed `reviewer.process_comment()`): `executeReview()` continuing the pull
 * request's REVIEWER conversation, then post the review in the mention's thread, then keep the
 * conversation for the next mention.
 */
import { executeReview, type ReviewOutcome } from '../review/execute-review.js';
import { countFindings, markerSeverity } from '../review/findings-metric.js';
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import { reviewLimitsOf } from '../review/limits.js';
import { verifySettingsOf } from '../review/stages/verify.js';
import { postReview, type PostedReview } from '../review/post-review.js';
import {
  configuredBotUsernames,
  logProgress,
  platformFor,
  trimConversation,
  type JobContext,
} from './job-context.js';
import { progressTarget } from './progress.js';
import { showVerdictGate } from './gate.js';
import { acquireLearningsStore } from './learning-job.js';
import { replyTargetOf } from './reply-target.js';
import { sessionKeyOf, type JobPayload } from './types.js';

/** What a REVIEWER job did. */
export interface ReviewerJobOutcome {
  review: ReviewOutcome;
  /** Undefined when nothing was posted (a trigger on the already-reviewed head, §13). */
  posted?: PostedReview;
}

/**
 * Runs a REVIEWER job: loads the session's conversation, reviews the pull request with the
 * mention's prompt (empty for lifecycle triggers) and the earlier messages as history, posts the
 * result (`postReview`; a plain comment goes into the mention's thread), shows its verdict as the
 * gate (`review.gate: on`, §21), saves the conversation
 * (session id + messages) and records the agent's tokens.
 * @throws ReviewbotError when the comment's platform is not enabled; AuthError / PlatformError /
 *   GitError / AgentError from reviewing or posting (nothing is saved then).
 */
export async function processReviewerComment(
  payload: JobPayload,
  ctx: JobContext,
): Promise<ReviewerJobOutcome> {
  const { comment } = payload;
  const platform = platformFor(ctx, comment.platform, {
    repoFullName: comment.repoFullName,
    botType: 'reviewer',
  });
  const key = sessionKeyOf(payload);
  const previous = await ctx.store.load(key);
  const learnings = await acquireLearningsStore(ctx);
  // §22: findings are verified in the host's sandbox (detected now when the host gave none).
  const sandbox =
    ctx.sandbox ??
    (ctx.config.review.verify === 'on' ? await setUpToolSandbox(ctx.config.agent, ctx.logger) : undefined);
  const review = await executeReview({
    platform,
    runner: ctx.createRunner('reviewer'),
    repoFullName: comment.repoFullName,
    prNumber: comment.prNumber,
    prompt: payload.prompt,
    history: previous?.messages ?? [],
    ...(previous ? { resumeSessionId: previous.sessionId } : {}),
    baseDir: ctx.config.workspace.base_dir,
    maxTurns: ctx.config.agent.max_turns,
    botUsernames: configuredBotUsernames(ctx.config),
    logger: ctx.logger,
    masker: ctx.masker,
    onEvent: logProgress(ctx.logger),
    reviewSettings: ctx.config.review,
    trigger: comment.commentType === 'lifecycle' ? 'lifecycle' : 'request',
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    limits: await reviewLimitsOf(ctx.config),
    verify: verifySettingsOf(ctx.config),
    ...(sandbox ? { sandbox } : {}),
    onReviewing: (pr) => ctx.progress?.start(progressTarget(pr)),
    learnings: {
      store: learnings.store,
      allowedUsers: ctx.config.access.allowed_users,
      // §23: a dismissal stored now is one the server observes (`reviewbot_findings_total`).
      onDismissed: ({ marker }) =>
        countFindings(ctx.metrics, platform.name, 'dismissed', [markerSeverity(marker)]),
    },
  }).finally(() => learnings.release());
  const gate = {
    platform,
    setting: ctx.config.review.gate,
    masker: ctx.masker,
    logger: ctx.logger,
  };
  const reviewer = ctx.config.reviewer.bot_username;
  if (review.skipped) {
    // A new head with nothing to review gets the gate of its open findings (§21); the reviewed
    // head keeps its own (an override stays).
    if (review.result.incremental?.mode === 'incremental') {
      await showVerdictGate(gate, review.pullRequest, review.result.verdict, reviewer ? { reviewer } : {});
    }
    ctx.logger.info(
      { headSha: review.commitSha },
      'nothing new to review since the last review; nothing posted',
    );
    return { review };
  }
  ctx.metrics.agentTokens('reviewer', review.result.usage);
  if (review.result.receipt) ctx.metrics.reviewReceipt(review.result.receipt);
  const posted = await postReview(platform, review, replyTargetOf(comment), ctx.logger, ctx.metrics);
  ctx.logger.info(
    { kind: posted.kind, url: posted.posted.url, findings: review.result.findings.length },
    'review posted',
  );
  await showVerdictGate(gate, review.pullRequest, review.result.verdict, {
    url: posted.posted.url,
    ...(reviewer ? { reviewer } : {}),
  });
  await ctx.store.save(key, {
    // No agent ran (e.g. every changed file skipped): keep the session a next mention resumes.
    sessionId: review.result.sessionId || previous?.sessionId || '',
    messages: trimConversation(review.messages),
    updatedAt: new Date().toISOString(),
  });
  return { review, posted };
}
