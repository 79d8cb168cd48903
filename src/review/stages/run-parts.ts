/**
 * The run-parts stage of a review (CONTRACT §15): one read-only agent run per part, at most
 * `review.max_parallel_runs` at once, every model call admitted by the review's usage meter (the
 * hard cost cap), each part's JSON parsed with at most two re-asks.
 */
import { REVIEWER_TOOLS } from '../../agent/tools/names.js';
import type { ReviewLimits } from '../limits.js';
import type { PartsOutcome } from '../parts-outcome.js';
import { createPartSession, type PartSession } from '../part-session.js';
import type { DiffPart } from '../parts.js';
import { buildReviewSystemPrompt } from '../prompt.js';
import { runParts } from '../run-parts.js';
import type { LoadedReview } from './load.js';
import type { PlannedReview } from './plan.js';
import type { ReviewContext } from './types.js';

/**
 * The review's run session: its usage meter and an abort signal that follows the caller's and fires
 * at the cost cap. Every agent run of the review (parts, the summary, verifications) runs in it;
 * `dispose()` it when they are over.
 */
export function openReviewSession(
  ctx: ReviewContext,
  workspaceDir: string,
  limits: ReviewLimits,
): PartSession {
  const { input } = ctx;
  return createPartSession({
    runner: input.runner,
    base: {
      workspaceDir,
      systemPrompt: buildReviewSystemPrompt(),
      tools: [...REVIEWER_TOOLS],
      maxTurns: input.maxTurns,
    },
    limits,
    signal: input.signal,
    onEvent: ctx.emit,
    onPhase: (message) => ctx.phase('parse', message),
  });
}

/** Input of `runPartsStage`. */
export interface RunPartsStageInput {
  session: PartSession;
  loaded: LoadedReview;
  planned: PlannedReview;
  limits: ReviewLimits;
}

/** `parts`, or one empty part when there is none (the agent still answers the requester). */
function withOnePart(parts: DiffPart[]): DiffPart[] {
  return parts.length > 0 ? parts : [{ files: [], tokens: 0 }];
}

/**
 * Runs the planned parts. With nothing left to show, no agent runs unless the requester asked
 * something (then one run over an empty part answers).
 * @throws AgentError when every part that ran failed, or the review was cancelled.
 */
export async function runPartsStage(ctx: ReviewContext, stage: RunPartsStageInput): Promise<PartsOutcome> {
  const { input } = ctx;
  const { session, loaded, planned, limits } = stage;
  const { plan } = planned;
  ctx.phase('agent', plan.parts.length > 1 ? `running ${plan.parts.length} agent runs` : 'running the agent');
  return runParts({
    context: session.context,
    parts: plan.parts.length > 0 || input.prompt?.trim() ? withOnePart(plan.parts) : [],
    pr: loaded.pullRequest,
    existingComments: loaded.comments,
    userPrompt: input.prompt ?? '',
    promptExtra: planned.promptExtra,
    history: input.history ?? [],
    resumeSessionId: input.resumeSessionId,
    maxParallelRuns: limits.maxParallelRuns,
  });
}
