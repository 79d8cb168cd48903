/**
 * Review memory and repository rules applied to a review's filtered findings (CONTRACT §13, §14,
 * §21), in two steps so that a stage can run between them (the verification of §22):
 *
 * 1. `selectFindings` — findings on ignored files dropped, LEFT findings whose anchor moved sent to
 *    the body, those less severe than `min_severity` set aside, repeats dropped, `max_comments`
 *    applied by rank, each kept finding's hidden marker, and the addressed threads found;
 * 2. `concludeMemory` — the verdict over what is posted and the earlier findings still open, and
 *    the body sections with the review marker.
 *
 * `settleMemory` is both at once. Nothing here posts or resolves anything (`postReview` resolves
 * the addressed threads once the review is posted, never in a dry run).
 */
import { toFileDiffs, type FileDiff } from '../../diff/diff.js';
import type { PullRequestInfo } from '../../platforms/types.js';
import type { ReviewBodyExtras } from '../body.js';
import { ignoredPaths, rulesNotice } from '../repo-rules.js';
import { applyCommentBudget, fileOrderOf, splitByThreshold } from '../severity/budget.js';
import { computeVerdict, openEarlierFindings, verdictLine } from '../severity/verdict.js';
import type { Finding, Verdict } from '../types.js';
import { addressedSection, findAddressed } from './addressed.js';
import { renderReviewMarker } from './markers.js';
import type { PreparedMemory } from './prepared.js';
import { planNotice } from './plan.js';
import { anchoredLines, repeatsNotice, splitRepeats } from './repeats.js';
import type { EarlierFinding } from './state.js';

/**
 * In an incremental review the model numbers LEFT lines in the file of the last reviewed head, while
 * the platform anchors LEFT comments in the base file. A LEFT finding stays inline only when the
 * text it anchors is the same in both diffs; otherwise it goes to the body (never to a wrong line).
 */
function checkLeftAnchors(
  memory: PreparedMemory,
  kept: Finding[],
  prFiles: Map<string, FileDiff>,
): { kept: Finding[]; misplaced: Finding[] } {
  if (memory.plan.info.mode !== 'incremental') return { kept, misplaced: [] };
  const shown = new Map(toFileDiffs(memory.shownFiles).map((f) => [f.path, f]));
  const out = { kept: [] as Finding[], misplaced: [] as Finding[] };
  for (const finding of kept) {
    if (finding.side !== 'LEFT') {
      out.kept.push(finding);
      continue;
    }
    const seen = anchoredLines(finding, shown);
    const real = anchoredLines(finding, prFiles);
    const same = seen.length > 0 && seen.length === real.length && seen.every((line, i) => line === real[i]);
    (same ? out.kept : out.misplaced).push(finding);
  }
  return out;
}

/** Input of `selectFindings`. */
export interface SelectFindingsInput {
  memory: PreparedMemory;
  /** Findings kept inline by the filter, and the rejected ones (for the body). */
  kept: Finding[];
  rejected: Finding[];
  /** The pull request's parsed diff (base...head), for fingerprints. */
  prFileDiffs: FileDiff[];
  /** Head checkout, to tell whether an open finding's code still exists. */
  workspaceDir: string;
}

/** What `selectFindings` kept and set aside. */
export interface SelectedFindings {
  /** Inline findings to post, ranked and cut by `max_comments`. */
  kept: Finding[];
  /** Hidden marker to append to each kept finding's inline body (same order; '' for none). */
  inlineMarkers: string[];
  /** Findings for the body: not on the diff, misplaced LEFT anchors, and those past the budget. */
  rejected: Finding[];
  /** Findings an earlier finding of the bot already anchors (§13): not posted. */
  repeats: Finding[];
  /** Open threads of the bot whose code changed: to resolve once the review is posted. */
  addressed: EarlierFinding[];
  /** §21: findings less severe than `review.min_severity`: not posted. */
  belowThreshold: Finding[];
}

/** Applies memory and rules to the filtered findings and finds the addressed threads. */
export async function selectFindings(input: SelectFindingsInput): Promise<SelectedFindings> {
  const { memory } = input;
  const files = new Map(input.prFileDiffs.map((f) => [f.path, f]));
  const { kept: anchored, misplaced } = checkLeftAnchors(memory, input.kept, files);
  // Findings on paths outside the pull request's files (the model may name any path) are matched
  // here, off the main thread like the rest.
  const unknown = [...input.kept, ...input.rejected].map((f) => f.path).filter((p) => !files.has(p));
  const ignoredElsewhere = await ignoredPaths(memory.rules, [...new Set(unknown)]);
  const isIgnored = (path: string): boolean => memory.isIgnored(path) || ignoredElsewhere.has(path);
  const visible = anchored.filter((f) => !isIgnored(f.path));
  const { rules } = memory;
  // §21: what is less severe than min_severity is not posted; the budget ranks what is left.
  const inline = splitByThreshold(visible, rules.minSeverity);
  const notes = splitByThreshold(
    [...input.rejected, ...misplaced].filter((f) => !isIgnored(f.path)),
    rules.minSeverity,
  );
  const split = splitRepeats(inline.posted, files, memory.state.findings);
  const budget = applyCommentBudget(
    split.fresh,
    rules.maxComments,
    fileOrderOf(input.prFileDiffs.map((f) => f.path)),
  );
  const reviewed = new Set(memory.shownFiles.map((f) => f.path));
  const addressed = await findAddressed(memory.state.findings, reviewed, input.workspaceDir);
  return {
    kept: budget.keep.map((i) => split.fresh[i]!),
    inlineMarkers: budget.keep.map((i) => split.markers[i] ?? ''),
    rejected: [...notes.posted, ...budget.folded],
    repeats: split.repeats,
    addressed,
    belowThreshold: [...inline.below, ...notes.below],
  };
}

/** Input of `concludeMemory`. */
export interface ConcludeMemoryInput {
  memory: PreparedMemory;
  pullRequest: PullRequestInfo;
  /** What is posted (inline and in the body), the repeats and the addressed threads. */
  posted: Pick<SelectedFindings, 'kept' | 'rejected' | 'repeats' | 'addressed'>;
  /** Time of the review marker (default now). */
  now?: Date;
  /** False when a part failed or the cost cap stopped one (see `markerHeadOf`); default true. */
  complete?: boolean;
  /** `path\0fingerprint` of the repository's dismissals (`dismissalKeys`): not open, not counted. */
  dismissed?: ReadonlySet<string>;
}

/** What `concludeMemory` produced. */
export interface ConcludedMemory {
  /** §21: the verdict over this review's posted findings and the earlier ones still open. */
  verdict: Verdict;
  /** Sections for `buildReviewBody`: notices, the verdict line, repeats, addressed, the review marker. */
  extras: Required<ReviewBodyExtras>;
}

/** The verdict and the body sections of a review whose posted findings are known. */
export function concludeMemory(input: ConcludeMemoryInput): ConcludedMemory {
  const { memory, posted } = input;
  const open = openEarlierFindings(memory.state.findings, posted.addressed, input.dismissed);
  const verdict = computeVerdict(
    [...posted.kept, ...posted.rejected].map((f) => f.severity).concat(open.map((f) => f.marker.severity)),
    memory.rules.blockOn,
  );
  const head = markerHeadOf(memory, input.pullRequest.headSha, input.complete ?? true);
  const extras = memoryExtras(memory, head, input.now);
  extras.afterSummary.push(verdictLine(verdict));
  extras.after.push(
    ...[repeatsNotice(posted.repeats), addressedSection(posted.addressed)].filter((s) => s.length > 0),
  );
  return { verdict, extras };
}

/** Input of `settleMemory`. */
export interface SettleMemoryInput extends SelectFindingsInput, Omit<ConcludeMemoryInput, 'posted'> {}

/** What `settleMemory` produced. */
export interface SettledMemory extends SelectedFindings, ConcludedMemory {}

/**
 * `selectFindings` then `concludeMemory`, with nothing between them.
 * Resolution failures are logged, never thrown.
 */
export async function settleMemory(input: SettleMemoryInput): Promise<SettledMemory> {
  const selected = await selectFindings(input);
  return { ...selected, ...concludeMemory({ ...input, posted: selected }) };
}

/** Body sections and the review marker for a review that ran no agent or could not be parsed. */
export function memoryExtras(
  memory: PreparedMemory,
  headSha: string | null,
  now = new Date(),
): Required<ReviewBodyExtras> {
  return {
    before: [planNotice(memory.plan), rulesNotice(memory.rules)].filter((s) => s.length > 0),
    afterSummary: [],
    after: [],
    markers: headSha === null ? [] : [renderReviewMarker({ head: headSha, at: now.toISOString() })],
  };
}

/**
 * The head a review's marker may claim: the reviewed head when every part was answered; when a
 * part failed or the cost cap stopped it, the previous review's head for an incremental review (so
 * the next one shows those changes again) and no head at all for a full one.
 */
export function markerHeadOf(memory: PreparedMemory, headSha: string, complete: boolean): string | null {
  if (complete) return headSha;
  return memory.plan.info.mode === 'incremental' ? memory.plan.info.sinceSha : null;
}
