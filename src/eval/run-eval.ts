/**
 * `reviewbot eval`'s loop (CONTRACT §23): each case is reviewed without posting, its findings (kept
 * and rejected) judged against its golden comments, and scored; a case that fails is counted in
 * `errors` and not scored. The review and the judge are passed in (the CLI wires the `review`
 * command's code path and the judge model), so this module holds only the loop and the sums.
 */
import type { TokenUsage } from '../agent/token-usage.js';
import { describeError } from '../errors.js';
import type { EvalCase, EvalDataset, GoldenComment } from './dataset.js';
import type { JudgedFinding } from './judge-prompt.js';
import type { JudgeResult } from './judge.js';
import type { Match } from './matching.js';
import { scoreCase, scoreOverall, type ScoreWithSeverities } from './scores.js';
import { findingSeverity, type EvalSeverity } from './severity.js';

/** What the review of one case produced (the review's findings, its tokens and cost). */
export interface CaseReview {
  /** Findings kept inline, then those folded into the body (rejected): `[F0]…` in this order. */
  kept: ReadonlyArray<JudgedFinding & { side?: string }>;
  rejected: ReadonlyArray<JudgedFinding & { side?: string }>;
  model: string;
  tokens: TokenCounts;
  /** USD; null when the model's price is unknown. */
  costUsd: number | null;
}

/** Input and output tokens. */
export interface TokenCounts {
  input: number;
  output: number;
}

/** One finding as the report shows it. */
export interface EvalFinding {
  path: string;
  line: number;
  side?: string;
  body: string;
  severity: EvalSeverity;
  /** True for a finding kept inline, false for one folded into the body (not on the diff). */
  kept: boolean;
}

/** One case's result. */
export interface CaseResult {
  ref: string;
  platform?: string;
  /** `scored`; `error` when the review or the judge failed (then no score). */
  status: 'scored' | 'error';
  error?: string;
  findings: EvalFinding[];
  golden: GoldenComment[];
  matches: Match[];
  /** Pairs of the judge's answer dropped by the one-to-one rule. */
  droppedMatches: number;
  score?: ScoreWithSeverities;
  review?: { model: string; tokens: TokenCounts; costUsd: number | null };
  judge?: { called: boolean; tokens: TokenCounts; costUsd: number | null };
  /** Review and judge together; null when either price is unknown. */
  tokens: TokenCounts;
  costUsd: number | null;
}

/** The whole run (`--json` prints it). */
export interface EvalReport {
  dataset: string;
  cases: CaseResult[];
  overall: ScoreWithSeverities & {
    /** Cases scored. */
    scored: number;
    /** Cases that failed (not in the scores). */
    errors: number;
    tokens: TokenCounts;
    /** USD of every review and judge call made, failed cases' included; null when one price is unknown. */
    costUsd: number | null;
  };
}

/** What `runEval` needs. */
export interface EvalDeps {
  /** Reviews one case without posting. Throws on failure (the case is then an error). */
  reviewCase(evalCase: EvalCase, index: number): Promise<CaseReview>;
  /** Judges one case's findings against its golden comments. Throws on failure. */
  judge(findings: readonly JudgedFinding[], golden: readonly GoldenComment[]): Promise<JudgeResult>;
  /** One progress line (stderr). */
  progress(line: string): void;
}

function tokensOf(usage: TokenUsage): TokenCounts {
  return { input: usage.inputTokens, output: usage.outputTokens };
}

function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** `$0.0123`, or `unknown` when a price is not known. */
export function formatUsd(cost: number | null): string {
  return cost === null ? 'unknown' : `$${cost.toFixed(4)}`;
}

async function runCase(evalCase: EvalCase, index: number, deps: EvalDeps): Promise<CaseResult> {
  const base = {
    ref: evalCase.ref,
    ...(evalCase.platform ? { platform: evalCase.platform } : {}),
    golden: evalCase.golden,
  };
  let review: CaseReview;
  try {
    review = await deps.reviewCase(evalCase, index);
  } catch (error) {
    return {
      ...base,
      status: 'error',
      error: `review failed: ${describeError(error)}`,
      findings: [],
      matches: [],
      droppedMatches: 0,
      tokens: { input: 0, output: 0 },
      costUsd: 0,
    };
  }
  const findings: EvalFinding[] = [
    ...review.kept.map((f) => ({ ...toEvalFinding(f), kept: true })),
    ...review.rejected.map((f) => ({ ...toEvalFinding(f), kept: false })),
  ];
  const reviewPart = { model: review.model, tokens: review.tokens, costUsd: review.costUsd };
  let judged: JudgeResult;
  try {
    judged = await deps.judge(findings, evalCase.golden);
  } catch (error) {
    return {
      ...base,
      status: 'error',
      error: `judge failed: ${describeError(error)}`,
      findings,
      matches: [],
      droppedMatches: 0,
      review: reviewPart,
      tokens: review.tokens,
      costUsd: review.costUsd,
    };
  }
  const judgeTokens = tokensOf(judged.usage);
  const score = scoreCase(
    findings.map((f) => f.severity),
    evalCase.golden.map((g) => g.severity),
    judged.matches,
  );
  return {
    ...base,
    status: 'scored',
    findings,
    matches: judged.matches,
    droppedMatches: judged.dropped,
    score,
    review: reviewPart,
    judge: { called: judged.called, tokens: judgeTokens, costUsd: judged.costUsd },
    tokens: {
      input: review.tokens.input + judgeTokens.input,
      output: review.tokens.output + judgeTokens.output,
    },
    costUsd: addCost(review.costUsd, judged.costUsd),
  };
}

function toEvalFinding(f: JudgedFinding & { side?: string }): Omit<EvalFinding, 'kept'> {
  return {
    path: f.path,
    line: f.line,
    ...(f.side ? { side: f.side } : {}),
    body: f.body,
    severity: findingSeverity(f),
  };
}

/** Runs every case of `dataset` in order, one at a time, and sums the scores. */
export async function runEval(dataset: EvalDataset, deps: EvalDeps): Promise<EvalReport> {
  const cases: CaseResult[] = [];
  let cost: number | null = 0;
  const tokens = { input: 0, output: 0 };
  const n = dataset.cases.length;
  for (const [i, evalCase] of dataset.cases.entries()) {
    deps.progress(`case ${i + 1} of ${n}: ${evalCase.ref}: reviewing (dry run)`);
    const result = await runCase(evalCase, i, deps);
    cases.push(result);
    cost = addCost(cost, result.costUsd);
    tokens.input += result.tokens.input;
    tokens.output += result.tokens.output;
    const outcome =
      result.status === 'error'
        ? `error: ${result.error ?? ''}`
        : `${result.findings.length} findings, ${result.matches.length} of ${result.golden.length} golden comments matched`;
    deps.progress(`case ${i + 1} of ${n}: ${evalCase.ref}: ${outcome}; cost so far ${formatUsd(cost)}`);
  }
  const scored = cases.filter((c) => c.score !== undefined);
  return {
    dataset: dataset.name,
    cases,
    overall: {
      ...scoreOverall(scored.map((c) => c.score!)),
      scored: scored.length,
      errors: cases.length - scored.length,
      tokens,
      costUsd: cost,
    },
  };
}
