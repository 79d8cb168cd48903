/**
 * The verification stage (CONTRACT §22): after a review's findings are known and before anything is
 * posted, each finding at or above `review.verify_min_severity` — most severe first, at most
 * `review.verify_max` — gets one verification run; the runs go in parallel up to
 * `review.max_parallel_runs`. Refuted findings leave the list; the rest carry their verification.
 */
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import type { TokenUsage } from '../../agent/token-usage.js';
import type { AgentRunner, ModelCallEstimate } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { runVerification, sandboxSkipReason, type VerificationRunResult } from './run-verification.js';
import { atOrAbove, compareSeverity, findingSeverity } from './severity.js';
import type {
  Severity,
  Verification,
  VerificationReceipt,
  VerificationUsage,
  VerifiedFinding,
} from './types.js';

/** The `review.*` keys the stage reads (snake_case as in the YAML). */
export interface VerifyConfig {
  verify: 'off' | 'on';
  verify_min_severity: Severity;
  verify_max: number;
  verify_timeout_seconds: number;
  max_parallel_runs: number;
}

/** Input of `verifyFindings`. */
export interface VerifyFindingsInput<F extends Finding> {
  /** The review's kept findings, in the review's order. */
  findings: readonly F[];
  /** The pull request's workspace (`pr-<N>`), held under the workspace lock by the caller. */
  tree: string;
  config: VerifyConfig;
  runner: AgentRunner;
  /** The host's tool sandbox (start-up detection). */
  sandbox: ToolSandbox;
  masker: SecretMasker;
  baseSha?: string;
  /** Where disposable trees' upper layers are made (default the OS temporary directory). */
  scratchDir?: string;
  signal?: AbortSignal;
  /** The review's cost cap (§15). */
  beforeModelCall?: (call: ModelCallEstimate) => boolean;
  logger?: Logger;
  /** Clock, ms (tests). */
  now?: () => number;
}

/** Output of `verifyFindings`. */
export interface VerifyFindingsResult<F extends Finding> {
  /**
   * The findings to post, in their original order: a verified one carries `verification`
   * (`confirmed`, `inconclusive` or `skipped`); findings not selected are unchanged.
   */
  findings: Array<F | VerifiedFinding<F>>;
  /** Findings a run refuted: not posted, listed in `--json` `refuted`, not counted in the verdict. */
  refuted: Array<VerifiedFinding<F>>;
  receipt: VerificationReceipt;
  usage: VerificationUsage;
  /**
   * The verification of each input finding, by its index in `VerifyFindingsInput.findings`
   * (`undefined` for one not selected): what was refuted, say, without matching findings up.
   */
  outcomes: Array<Verification | undefined>;
}

/**
 * Indexes (into `findings`) of the findings to verify: at or above `minSeverity`, most severe first
 * (ties keep the review's order), at most `max`. Pure.
 */
export function selectForVerification(
  findings: readonly Finding[],
  minSeverity: Severity,
  max: number,
): number[] {
  return findings
    .map((finding, index) => ({ index, severity: findingSeverity(finding) }))
    .filter((entry) => atOrAbove(entry.severity, minSeverity))
    .sort((a, b) => compareSeverity(a.severity, b.severity) || a.index - b.index)
    .slice(0, Math.max(0, max))
    .map((entry) => entry.index);
}

/** Runs `tasks` with at most `limit` in flight; results in the tasks' order. */
async function inParallel<T>(tasks: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

/**
 * Verifies the selected findings. With `review.verify: off` or nothing selected it returns the
 * findings unchanged and a zero receipt; without a sandbox every selected finding is `skipped` and
 * the receipt says why. Never throws for a failed run (see `runVerification`).
 */
export async function verifyFindings<F extends Finding>(
  input: VerifyFindingsInput<F>,
): Promise<VerifyFindingsResult<F>> {
  const now = input.now ?? Date.now;
  const started = now();
  const receipt: VerificationReceipt = {
    confirmed: 0,
    refuted: 0,
    inconclusive: 0,
    skipped: 0,
    durationMs: 0,
  };
  const usage: VerificationUsage = { usage: { inputTokens: 0, outputTokens: 0 }, turns: 0 };
  const selected =
    input.config.verify === 'on'
      ? selectForVerification(input.findings, input.config.verify_min_severity, input.config.verify_max)
      : [];
  const outcomes: Array<Verification | undefined> = input.findings.map(() => undefined);
  if (selected.length === 0) return { findings: [...input.findings], refuted: [], receipt, usage, outcomes };
  const skipReason = sandboxSkipReason(input.sandbox);
  if (skipReason !== undefined) receipt.skippedReason = skipReason;
  const runs = await inParallel(
    selected.map((index) => () => runVerification(runInput(input, input.findings[index] as F))),
    input.config.max_parallel_runs,
  );
  const byIndex = new Map<number, Verification>();
  for (const [i, run] of runs.entries()) {
    byIndex.set(selected[i] as number, run.verification);
    addRun(usage, run);
    const status = run.verification.status;
    receipt[status] += 1;
    if (status === 'skipped' && run.verification.reason) receipt.skippedReason ??= run.verification.reason;
  }
  const findings: Array<F | VerifiedFinding<F>> = [];
  const refuted: Array<VerifiedFinding<F>> = [];
  for (const [index, finding] of input.findings.entries()) {
    const verification = byIndex.get(index);
    outcomes[index] = verification;
    if (verification === undefined) findings.push(finding);
    else if (verification.status === 'refuted') refuted.push({ ...finding, verification });
    else findings.push({ ...finding, verification });
  }
  receipt.durationMs = now() - started;
  return { findings, refuted, receipt, usage, outcomes };
}

function runInput<F extends Finding>(input: VerifyFindingsInput<F>, finding: F) {
  return {
    finding,
    workspace: input.tree,
    sandbox: input.sandbox,
    runner: input.runner,
    timeoutMs: input.config.verify_timeout_seconds * 1000,
    masker: input.masker,
    ...(input.baseSha ? { baseSha: input.baseSha } : {}),
    ...(input.scratchDir ? { scratchDir: input.scratchDir } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.beforeModelCall ? { beforeModelCall: input.beforeModelCall } : {}),
    ...(input.logger ? { logger: input.logger } : {}),
  };
}

function addRun(total: VerificationUsage, run: VerificationRunResult): void {
  const sum: TokenUsage = total.usage;
  sum.inputTokens += run.usage.inputTokens;
  sum.outputTokens += run.usage.outputTokens;
  if (run.usage.cacheReadTokens !== undefined)
    sum.cacheReadTokens = (sum.cacheReadTokens ?? 0) + run.usage.cacheReadTokens;
  if (run.usage.cacheWriteTokens !== undefined)
    sum.cacheWriteTokens = (sum.cacheWriteTokens ?? 0) + run.usage.cacheWriteTokens;
  total.turns += run.turns;
  if (run.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + run.costUsd;
}
