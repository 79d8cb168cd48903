/**
 * The comment budget (CONTRACT §14, §21): findings less severe than `review.min_severity` are not
 * posted at all, and `review.max_comments` keeps the most important inline findings — ranked by
 * severity, then confidence, then file order — folding the rest into the review body (never
 * dropping them). A P0 is never folded, whatever the budget.
 */
import type { Finding } from '../types.js';
import { atOrAbove, severityRank, type Severity } from './severity.js';

/** Findings split by `review.min_severity`. */
export interface ThresholdSplit<T extends Finding> {
  /** At or above the threshold: to post. */
  posted: T[];
  /** Less severe than the threshold: not posted, listed in `belowThreshold` and counted. */
  below: T[];
}

/** Splits `findings` (order kept) by `minSeverity`. */
export function splitByThreshold<T extends Finding>(findings: T[], minSeverity: Severity): ThresholdSplit<T> {
  const out: ThresholdSplit<T> = { posted: [], below: [] };
  for (const finding of findings)
    (atOrAbove(finding.severity, minSeverity) ? out.posted : out.below).push(finding);
  return out;
}

/**
 * Compares two findings for the budget: the more severe first, then the higher confidence (an
 * unknown confidence after any known one), then file order (`fileOrder` of the path, then line),
 * then the order the model gave (`index`).
 */
function compare(
  a: { finding: Finding; index: number },
  b: { finding: Finding; index: number },
  fileOrder: (path: string) => number,
): number {
  const bySeverity = severityRank(a.finding.severity) - severityRank(b.finding.severity);
  if (bySeverity !== 0) return bySeverity;
  const ca = a.finding.confidence ?? -1;
  const cb = b.finding.confidence ?? -1;
  if (ca !== cb) return cb - ca;
  const byFile = fileOrder(a.finding.path) - fileOrder(b.finding.path);
  if (byFile !== 0) return byFile;
  const byLine = a.finding.line - b.finding.line;
  return Number.isFinite(byLine) && byLine !== 0 ? byLine : a.index - b.index;
}

/**
 * Which inline findings fit `maxComments`: the indexes into `findings` to keep inline (ascending,
 * so the posted order is the model's) and the folded ones, most important first. Every P0 is kept,
 * even past the budget. Without a budget everything is kept.
 *
 * @param fileOrder position of a path in the pull request's diff (unknown paths last).
 */
export function applyCommentBudget(
  findings: Finding[],
  maxComments: number | undefined,
  fileOrder: (path: string) => number,
): { keep: number[]; folded: Finding[] } {
  const all = findings.map((finding, index) => ({ finding, index }));
  if (maxComments === undefined || findings.length <= maxComments) {
    return { keep: all.map((x) => x.index), folded: [] };
  }
  const ranked = [...all].sort((a, b) => compare(a, b, fileOrder));
  const kept = new Set<number>();
  for (const item of ranked) {
    if (kept.size < maxComments || item.finding.severity === 'P0') kept.add(item.index);
  }
  return {
    keep: [...kept].sort((a, b) => a - b),
    folded: ranked.filter((item) => !kept.has(item.index)).map((item) => item.finding),
  };
}

/** `fileOrder` for `applyCommentBudget` from the pull request's paths in diff order. */
export function fileOrderOf(paths: readonly string[]): (path: string) => number {
  const order = new Map<string, number>();
  for (const [i, path] of paths.entries()) if (!order.has(path)) order.set(path, i);
  return (path) => order.get(path) ?? Number.MAX_SAFE_INTEGER;
}
