/**
 * The settle-memory stage of a review (CONTRACT §7, §13, §14, §20, §21): the parts' comments
 * filtered against the whole diff (duplicates of what the bot already posted dropped), findings on
 * skipped files dropped (never commented on, not even in the body), findings matching a dismissal
 * dropped, then review memory's selection: ignored files, `review.min_severity`, repeats and the
 * `max_comments` budget. What is left is what the review would post; the verdict is concluded later
 * (`assembleStage`), once the verification stage has dropped what it refuted.
 */
import type { Platform } from '../../platforms/types.js';
import { renderInlineBody } from '../body.js';
import { filterFindings } from '../filter.js';
import { selectFindings, type SelectedFindings } from '../memory/index.js';
import type { PartsOutcome } from '../parts-outcome.js';
import type { Finding } from '../types.js';
import type { LoadedReview } from './load.js';
import type { PlannedReview } from './plan.js';
import type { TriagedReview } from './triage.js';

/** Input of `settleMemoryStage`. */
export interface SettleMemoryStageInput {
  platform: Platform;
  loaded: LoadedReview;
  triaged: TriagedReview;
  planned: PlannedReview;
  /** The parts' merged outcome, markers neutralised. */
  outcome: PartsOutcome;
}

/** What the settle-memory stage kept. */
export interface SettledFindings extends SelectedFindings {
  /** Proposed comments identical to one the bot already posted (or to an earlier one), dropped. */
  duplicates: number;
  /** The body line counting the findings dropped as dismissed ('' for none). */
  dismissedNotice: string;
}

/** The platform's rendering of a finding's inline body, without evidence or marker. */
export function inlineRenderer(platform: Platform): (finding: Finding) => string {
  return (finding) => renderInlineBody(finding, (s, n) => platform.renderSuggestion(s, n));
}

/** Filters the parts' comments and applies review memory's selection to them. */
export async function settleMemoryStage(stage: SettleMemoryStageInput): Promise<SettledFindings> {
  const { loaded, triaged, planned, outcome } = stage;
  const filtered = filterFindings(outcome.comments, triaged.index, planned.botComments, {
    renderBody: inlineRenderer(stage.platform),
  });
  const notSkipped = (f: Finding): boolean => !triaged.skippedPaths.has(f.path);
  const split = loaded.taught.dropDismissed(filtered.kept.filter(notSkipped), triaged.fileDiffs);
  const selected = await selectFindings({
    memory: loaded.memory,
    kept: split.kept,
    rejected: filtered.rejected.filter(notSkipped),
    prFileDiffs: triaged.fileDiffs,
    workspaceDir: loaded.workspace.dir,
  });
  return { ...selected, duplicates: filtered.duplicates.length, dismissedNotice: split.notice };
}
