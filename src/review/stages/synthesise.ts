/**
 * The synthesise stage of a review (CONTRACT §18, §13): several parts' summaries become one, by one
 * model call without tools, and the hidden markers a model wrote are neutralised, so that none
 * passes for the bot's own.
 */
import type { PullRequestInfo } from '../../platforms/types.js';
import { neutraliseMarkers, withoutMarkers } from '../memory/index.js';
import type { PartsOutcome } from '../parts-outcome.js';
import type { PartSession } from '../part-session.js';
import { synthesizeSummary } from '../synthesis.js';

/** Input of `synthesiseStage`. */
export interface SynthesiseStageInput {
  session: PartSession;
  pullRequest: PullRequestInfo;
  parts: PartsOutcome;
  /** Paths never shown nor posted (triage's skipped files): left out of the summary call. */
  skippedPaths: ReadonlySet<string>;
}

/** What the synthesise stage produced. */
export interface SynthesisedReview {
  /** The parts with their one summary, as the model wrote them (kept in the conversation). */
  written: PartsOutcome;
  /** The same with the model's hidden markers neutralised: what the review may post. */
  outcome: PartsOutcome;
}

/**
 * One summary of the parts (a single part keeps its own), the model's markers neutralised.
 * @throws AgentError when the review was cancelled from outside.
 */
export async function synthesiseStage(stage: SynthesiseStageInput): Promise<SynthesisedReview> {
  const parts = await synthesizeSummary(stage.session.context, {
    pr: stage.pullRequest,
    outcome: stage.parts,
    skipped: (path) => stage.skippedPaths.has(path),
  });
  // A marker written by the model must not pass for the bot's own (§13).
  const merged = withoutMarkers({ summary: parts.summary, comments: parts.comments });
  return {
    written: parts,
    outcome: { ...parts, ...merged, unparsed: parts.unparsed.map(neutraliseMarkers) },
  };
}
