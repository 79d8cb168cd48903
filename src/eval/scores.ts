/**
 * The arithmetic of `reviewbot eval` (CONTRACT §23): true positives (matches), false positives
 * (findings matching no golden comment), false negatives (golden comments no finding matched),
 * precision, recall and F1, per severity too. Pure.
 *
 * Per severity, a match counts under its golden comment's severity when the dataset states one,
 * else under the finding's; an unmatched finding under its own severity; an unmatched golden
 * comment under its stated severity (`P2` when none). So the severities add up to the totals.
 */
import type { Match } from './matching.js';
import { EVAL_SEVERITIES, UNSTATED_SEVERITY, type EvalSeverity } from './severity.js';

/** Counts and ratios of one case, one severity, or the whole dataset. */
export interface Score {
  tp: number;
  fp: number;
  fn: number;
  /** tp / (tp + fp), 4 decimals; null when there is no finding. */
  precision: number | null;
  /** tp / (tp + fn), 4 decimals; null when there is no golden comment. */
  recall: number | null;
  /** 2tp / (2tp + fp + fn) (the harmonic mean of the two), 4 decimals; null when both are empty. */
  f1: number | null;
}

/** A score and the same per severity. */
export interface ScoreWithSeverities extends Score {
  bySeverity: Record<EvalSeverity, Score>;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** The ratios of `tp`, `fp`, `fn`. */
export function scoreOf(tp: number, fp: number, fn: number): Score {
  return {
    tp,
    fp,
    fn,
    precision: tp + fp === 0 ? null : round(tp / (tp + fp)),
    recall: tp + fn === 0 ? null : round(tp / (tp + fn)),
    f1: 2 * tp + fp + fn === 0 ? null : round((2 * tp) / (2 * tp + fp + fn)),
  };
}

type Counts = Record<EvalSeverity, { tp: number; fp: number; fn: number }>;

function zero(): Counts {
  return {
    P0: { tp: 0, fp: 0, fn: 0 },
    P1: { tp: 0, fp: 0, fn: 0 },
    P2: { tp: 0, fp: 0, fn: 0 },
    P3: { tp: 0, fp: 0, fn: 0 },
  };
}

function withSeverities(counts: Counts): ScoreWithSeverities {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const bySeverity = {} as Record<EvalSeverity, Score>;
  for (const severity of EVAL_SEVERITIES) {
    const c = counts[severity];
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
    bySeverity[severity] = scoreOf(c.tp, c.fp, c.fn);
  }
  return { ...scoreOf(tp, fp, fn), bySeverity };
}

/**
 * Scores one case.
 * @param findings each finding's severity, by index (`[F<i>]`).
 * @param golden each golden comment's stated severity (undefined when none), by index (`[G<j>]`).
 * @param matches one-to-one pairs in range (see `enforceOneToOne`).
 */
export function scoreCase(
  findings: readonly EvalSeverity[],
  golden: readonly (EvalSeverity | undefined)[],
  matches: readonly Match[],
): ScoreWithSeverities {
  const counts = zero();
  const matchedF = new Set<number>();
  const matchedG = new Set<number>();
  for (const { finding, golden: g } of matches) {
    matchedF.add(finding);
    matchedG.add(g);
    counts[golden[g] ?? findings[finding] ?? UNSTATED_SEVERITY].tp++;
  }
  for (const [i, severity] of findings.entries()) if (!matchedF.has(i)) counts[severity].fp++;
  for (const [j, severity] of golden.entries()) {
    if (!matchedG.has(j)) counts[severity ?? UNSTATED_SEVERITY].fn++;
  }
  return withSeverities(counts);
}

/** The dataset's score: the cases' counts added up (micro average), per severity too. */
export function scoreOverall(cases: readonly ScoreWithSeverities[]): ScoreWithSeverities {
  const counts = zero();
  for (const score of cases) {
    for (const severity of EVAL_SEVERITIES) {
      const s = score.bySeverity[severity];
      counts[severity].tp += s.tp;
      counts[severity].fp += s.fp;
      counts[severity].fn += s.fn;
    }
  }
  return withSeverities(counts);
}
