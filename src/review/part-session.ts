/**
 * The shared state of one review's agent runs (CONTRACT §15): an abort signal that follows the
 * caller's and fires when the cost cap is reached, the usage meter, run ids, and the conversation
 * a review leaves for the next mention.
 */
import type { AgentEvent, AgentRunResult, AgentRunner, ConversationMessage } from '../agent/types.js';
import type { ReviewLimits } from './limits.js';
import type { PartRunContext } from './run-part.js';
import type { PartsOutcome } from './parts-outcome.js';
import { createUsageMeter, type UsageMeter } from './usage-meter.js';

/** Input of `createPartSession`. */
export interface PartSessionInput {
  runner: AgentRunner;
  base: PartRunContext['base'];
  limits: ReviewLimits;
  signal?: AbortSignal | undefined;
  onEvent: (event: AgentEvent) => void;
  onPhase: (message: string) => void;
}

/** A review's run session; `dispose()` when the runs are over. */
export interface PartSession {
  context: PartRunContext;
  meter: UsageMeter;
  dispose(): void;
}

/** Reason of the abort the cost cap causes. */
const CAP_REASON = 'review.max_cost_usd reached';

/** Creates the session: cost cap → abort every run of this review (and only this review). */
export function createPartSession(input: PartSessionInput): PartSession {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(input.signal?.reason);
  if (input.signal?.aborted) onOuterAbort();
  else input.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const meter = createUsageMeter({
    rates: input.limits.rates,
    maxCostUsd: input.limits.maxCostUsd,
    onCap: () => {
      input.onPhase(`the review reached its cost cap ($${input.limits.maxCostUsd}); stopping the agent runs`);
      controller.abort(new Error(CAP_REASON));
    },
  });
  let runId = 0;
  return {
    meter,
    context: {
      runner: input.runner,
      base: input.base,
      signal: controller.signal,
      cappedNow: () => meter.capped,
      meter,
      onEvent: input.onEvent,
      onPhase: input.onPhase,
      nextRunId: () => ++runId,
    },
    dispose: () => input.signal?.removeEventListener('abort', onOuterAbort),
  };
}

/**
 * The conversation to keep after a review: a single part's own transcript; for several parts the
 * earlier history plus one exchange naming the parts and carrying the merged review (the parts'
 * prompts are too large to keep).
 */
export function conversationAfter(
  history: ConversationMessage[],
  outcome: PartsOutcome,
  firstRun: AgentRunResult | undefined,
): ConversationMessage[] {
  if (outcome.results.length <= 1) return firstRun?.messages ?? history;
  const answer = JSON.stringify({ summary: outcome.summary, comments: outcome.comments });
  return [
    ...history,
    {
      role: 'user',
      content: `Review this pull request (its diff was reviewed in ${outcome.results.length} parts).`,
    },
    { role: 'assistant', content: answer },
  ];
}
