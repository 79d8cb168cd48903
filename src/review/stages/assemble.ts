/**
 * The assemble stage of a review (CONTRACT §7, §15, §21, §22): the verdict concluded over what is
 * posted (refuted findings are not), the receipt built and appended to the body as a collapsed block (a notice first when the
 * cost cap stopped the runs or parts failed), and each kept finding's inline body rendered by the
 * platform with its evidence or not-verified line and its hidden marker.
 */
import type { Platform } from '../../platforms/types.js';
import { SecretMasker } from '../../secrets.js';
import { buildReviewBody, renderInlineBody, type ReviewBodyExtras } from '../body.js';
import { concludeMemory } from '../memory/index.js';
import type { PartsOutcome } from '../parts-outcome.js';
import type { PartPlan } from '../parts.js';
import { buildReceipt, cappedNotice, failedPartsNotice, renderReceipt } from '../receipt.js';
import { severityFactsOf } from '../severity/receipt-facts.js';
import { dismissalKeys } from '../severity/verdict.js';
import type { ExecuteReviewResult, Finding } from '../types.js';
import type { UsageMeter } from '../usage-meter.js';
import type { LoadedReview } from './load.js';
import type { PlannedReview } from './plan.js';
import type { TriagedReview } from './triage.js';
import type { ReviewContext } from './types.js';
import type { VerifiedReview } from './verify.js';

/** Input of `assembleStage`. */
export interface AssembleStageInput {
  platform: Platform;
  loaded: LoadedReview;
  triaged: TriagedReview;
  planned: PlannedReview;
  /** The parts' merged outcome, markers neutralised. */
  outcome: PartsOutcome;
  /** What the review posts (`verified.settled`) and what the verify stage did. */
  verified: VerifiedReview;
  meter: UsageMeter;
  maxCostUsd?: number | undefined;
}

/** What the assemble stage built. */
export interface AssembledReview {
  result: ExecuteReviewResult;
  /** The platform's rendering of each kept finding's inline body, same order as `result.findings`. */
  inlineBodies: string[];
  /** The body's sections besides the summary and notes, for a body rebuilt when posting falls back. */
  bodyExtras: Required<ReviewBodyExtras>;
}

/** Sum of `pick` over the parts that ran. */
function sum<T>(items: Array<T | undefined>, pick: (item: T) => number): number {
  let total = 0;
  for (const item of items) if (item !== undefined) total += pick(item);
  return total;
}

/** Why a part's files were not reviewed. */
const STOPPED_BY_CAP = 'stopped by the cost cap (review.max_cost_usd)';
const PART_FAILED = "its part's agent run failed";

/**
 * The files not reviewed, each with its reason: those the plan left out, then the files of parts
 * the cost cap kept from running or stopped before they answered.
 */
function notReviewedOf(
  plan: PartPlan,
  outcome: PartsOutcome,
): { paths: string[]; reasons: Record<string, string> } {
  const paths = [...plan.notReviewed];
  const reasons: Record<string, string> = { ...plan.notReviewedReasons };
  const listed = new Set(paths);
  const add = (path: string, reason: string): void => {
    if (listed.has(path)) return;
    listed.add(path);
    paths.push(path);
    reasons[path] = reason;
  };
  for (const [i, part] of plan.parts.entries()) {
    const result = outcome.results[i];
    if (result?.error !== undefined && result.parsed === undefined) {
      for (const file of part.files) add(file.path, PART_FAILED);
      continue;
    }
    if (result !== undefined && (result.parsed !== undefined || !result.stopped)) continue;
    for (const file of part.files) add(file.path, STOPPED_BY_CAP);
  }
  return { paths, reasons };
}

/** The summary the body opens with. */
function summaryOf(outcome: PartsOutcome, skipped: number): string {
  if (outcome.results.length > 0)
    return [outcome.summary, ...outcome.unparsed].filter((text) => text !== '').join('\n\n');
  return skipped > 0
    ? `Nothing to review: all ${skipped} changed files were skipped (see the receipt).`
    : 'Nothing to review: the pull request changes no files.';
}

/**
 * Builds the review result and each kept finding's inline body. `durationMs` (result and receipt)
 * is measured up to this call.
 */
export function assembleStage(ctx: ReviewContext, stage: AssembleStageInput): AssembledReview {
  const { loaded, triaged, planned, outcome, verified, meter } = stage;
  const { settled } = verified;
  const { plan } = planned;
  const { triage } = triaged;
  const run = outcome.results.find((r) => r?.run)?.run;
  const { kept, rejected } = settled;
  ctx.phase(
    'filter',
    `${kept.length} inline, ${rejected.length} not in diff, ${settled.duplicates} already posted, ${settled.repeats.length} repeats`,
  );
  const { paths: notReviewed, reasons: notReviewedReasons } = notReviewedOf(plan, outcome);
  // Complete = every part the plan made was answered: none failed and the cost cap stopped none.
  // (Files over `max_parts` are left out the same way on every review; retrying cannot add them.)
  const complete = notReviewed.length === plan.notReviewed.length;
  const concluded = concludeMemory({
    memory: loaded.memory,
    pullRequest: loaded.pullRequest,
    posted: settled,
    complete,
    dismissed: dismissalKeys(loaded.taught.all),
  });
  if (settled.dismissedNotice) concluded.extras.after.push(settled.dismissedNotice);

  const durationMs = Date.now() - ctx.started;
  const receipt = buildReceipt({
    model: run?.model ?? '',
    // The synthesis call of a multi-part review (§18) is one more run and turn; so are verifications (§22).
    agentRuns: sum(outcome.results, (r) => r.runs) + (outcome.synthesis?.runs ?? 0) + verified.runs,
    turns: sum(outcome.results, (r) => r.turns) + (outcome.synthesis?.turns ?? 0) + verified.turns,
    toolCalls: sum(outcome.results, (r) => r.toolCalls) + verified.toolCalls,
    tokens: meter.tokens(),
    costUsd: meter.costUsd(),
    durationMs,
    reviewedFiles: triage.kept.length - notReviewed.length,
    skipped: triage.skipped,
    notReviewed,
    notReviewedReasons,
    capped: meter.capped,
    findings: severityFactsOf(kept, rejected, settled.belowThreshold),
    ...(verified.receipt ? { verification: verified.receipt } : {}),
  });
  const summary = summaryOf(outcome, triage.skipped.length);
  const before = meter.capped && stage.maxCostUsd !== undefined ? [cappedNotice(stage.maxCostUsd)] : [];
  const failed = outcome.results.filter((r) => r?.error !== undefined && r.parsed === undefined).length;
  if (failed > 0) before.push(failedPartsNotice(failed, outcome.results.length));
  const bodyExtras: Required<ReviewBodyExtras> = {
    before: [...concluded.extras.before, ...before],
    afterSummary: concluded.extras.afterSummary,
    after: [...concluded.extras.after, renderReceipt(receipt)],
    markers: concluded.extras.markers,
  };
  const result: ExecuteReviewResult = {
    summary,
    findings: kept,
    rejected,
    body: buildReviewBody(summary || '_The reviewer produced no output._', rejected, bodyExtras),
    sessionId: run?.sessionId ?? '',
    model: run?.model ?? '',
    usage: meter.usage(),
    durationMs,
    warnings: [...meter.warnings],
    receipt,
    repeats: settled.repeats,
    belowThreshold: settled.belowThreshold,
    verdict: concluded.verdict,
    incremental: loaded.memory.plan.info,
    ...(verified.receipt ? { refuted: verified.refuted } : {}),
  };
  if (ctx.input.learnings) {
    // Only what a model was actually given (no agent run: nothing applied).
    result.learningsApplied = outcome.results.length > 0 ? planned.learningsApplied : [];
    result.dismissed = loaded.taught.dismissed();
  }
  const masker = ctx.input.masker ?? new SecretMasker();
  const render = (f: Finding): string =>
    renderInlineBody(f, (s, n) => stage.platform.renderSuggestion(s, n), masker);
  const inlineBodies = kept.map((f, i) =>
    [render(f), settled.inlineMarkers[i] ?? ''].filter((part) => part !== '').join('\n\n'),
  );
  return { result, inlineBodies, bodyExtras };
}
