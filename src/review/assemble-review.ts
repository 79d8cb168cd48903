/**
 * The end of a review (CONTRACT §7, §15): the parts' merged comments filtered against the whole
 * diff, findings on skipped files dropped (never commented on, not even in the body), the receipt
 * built and appended to the body as a collapsed block, a notice first when the cost cap stopped it.
 */
import type { ExistingComment, Platform } from '../platforms/types.js';
import { buildReviewBody, renderInlineBody, type ReviewBodyExtras } from './body.js';
import type { DiffIndex } from '../diff/diff-index.js';
import { filterFindings } from './filter.js';
import type { PartPlan } from './parts.js';
import { buildReceipt, cappedNotice, failedPartsNotice, renderReceipt } from './receipt.js';
import type { PartsOutcome } from './parts-outcome.js';
import type { TriageResult } from './triage.js';
import { severityFactsOf } from './severity/receipt-facts.js';
import type { ExecuteReviewResult, Finding, Verdict } from './types.js';
import type { UsageMeter } from './usage-meter.js';

/** Input of `assembleReview`. */
export interface AssembleInput {
  platform: Platform;
  outcome: PartsOutcome;
  plan: PartPlan;
  triage: TriageResult;
  /** The whole pull request's diff. */
  index: DiffIndex;
  botComments: ExistingComment[];
  meter: UsageMeter;
  maxCostUsd?: number | undefined;
  /** `Date.now()` when the review started. */
  started: number;
  onPhase: (message: string) => void;
  /**
   * Review memory (§13/§14) applied to the filtered findings: repeats and ignored files dropped,
   * `max_comments`, body sections and hidden markers. Default: findings as filtered.
   */
  settle?: (
    kept: Finding[],
    rejected: Finding[],
    coverage: { complete: boolean },
  ) => Promise<SettledFindings>;
}

/** What `AssembleInput.settle` returns (a subset of review memory's `SettledMemory`). */
export interface SettledFindings {
  kept: Finding[];
  /** Hidden marker per kept finding, appended to its inline body ('' for none). */
  inlineMarkers: string[];
  rejected: Finding[];
  repeats: Finding[];
  extras: Required<ReviewBodyExtras>;
  /** §21: findings less severe than `review.min_severity` (not posted). */
  belowThreshold?: Finding[];
  /** §21: the verdict over the pull request's open findings. */
  verdict?: Verdict;
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

/**
 * Builds the review result and each kept finding's inline body (the platform's rendering).
 * `durationMs` (result and receipt) is measured up to this call.
 */
export async function assembleReview(input: AssembleInput): Promise<{
  result: ExecuteReviewResult;
  inlineBodies: string[];
  /** The body's sections besides the summary and notes, for a body rebuilt when posting falls back. */
  bodyExtras: Required<ReviewBodyExtras>;
}> {
  const { outcome, plan, triage, meter } = input;
  const run = outcome.results.find((r) => r?.run)?.run;
  const skippedPaths = new Set(triage.skipped.map((s) => s.path));
  const render = (f: Finding): string => renderInlineBody(f, (s, n) => input.platform.renderSuggestion(s, n));
  const filtered = filterFindings(outcome.comments, input.index, input.botComments, { renderBody: render });
  const filteredKept = filtered.kept.filter((f) => !skippedPaths.has(f.path));
  const filteredRejected = filtered.rejected.filter((f) => !skippedPaths.has(f.path));
  const { paths: notReviewed, reasons: notReviewedReasons } = notReviewedOf(plan, outcome);
  // Complete = every part the plan made was answered: none failed and the cost cap stopped none.
  // (Files over `max_parts` are left out the same way on every review; retrying cannot add them.)
  const complete = notReviewed.length === plan.notReviewed.length;
  const settled: SettledFindings = input.settle
    ? await input.settle(filteredKept, filteredRejected, { complete })
    : {
        kept: filteredKept,
        inlineMarkers: [],
        rejected: filteredRejected,
        repeats: [],
        extras: { before: [], afterSummary: [], after: [], markers: [] },
      };
  const { kept, rejected } = settled;
  input.onPhase(
    `${kept.length} inline, ${rejected.length} not in diff, ${filtered.duplicates.length} already posted, ${settled.repeats.length} repeats`,
  );

  const durationMs = Date.now() - input.started;
  const receipt = buildReceipt({
    model: run?.model ?? '',
    // The synthesis call of a multi-part review (§18) is one more run and turn.
    agentRuns: sum(outcome.results, (r) => r.runs) + (outcome.synthesis?.runs ?? 0),
    turns: sum(outcome.results, (r) => r.turns) + (outcome.synthesis?.turns ?? 0),
    toolCalls: sum(outcome.results, (r) => r.toolCalls),
    tokens: meter.tokens(),
    costUsd: meter.costUsd(),
    durationMs,
    reviewedFiles: triage.kept.length - notReviewed.length,
    skipped: triage.skipped,
    notReviewed,
    notReviewedReasons,
    capped: meter.capped,
    findings: severityFactsOf(kept, rejected, settled.belowThreshold),
  });
  const summary =
    outcome.results.length === 0
      ? triage.skipped.length > 0
        ? `Nothing to review: all ${triage.skipped.length} changed files were skipped (see the receipt).`
        : 'Nothing to review: the pull request changes no files.'
      : [outcome.summary, ...outcome.unparsed].filter((text) => text !== '').join('\n\n');
  const before = meter.capped && input.maxCostUsd !== undefined ? [cappedNotice(input.maxCostUsd)] : [];
  const failed = outcome.results.filter((r) => r?.error !== undefined && r.parsed === undefined).length;
  if (failed > 0) before.push(failedPartsNotice(failed, outcome.results.length));
  const bodyExtras: Required<ReviewBodyExtras> = {
    before: [...settled.extras.before, ...before],
    afterSummary: settled.extras.afterSummary,
    after: [...settled.extras.after, renderReceipt(receipt)],
    markers: settled.extras.markers,
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
    ...(settled.belowThreshold ? { belowThreshold: settled.belowThreshold } : {}),
    ...(settled.verdict ? { verdict: settled.verdict } : {}),
  };
  const inlineBodies = kept.map((f, i) =>
    [render(f), settled.inlineMarkers[i] ?? ''].filter((part) => part !== '').join('\n\n'),
  );
  return { result, inlineBodies, bodyExtras };
}
