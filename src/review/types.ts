/** Records of the review pipeline (CONTRACT §7). */
import type { TokenUsage } from '../agent/token-usage.js';
import type { DiffSide } from '../diff/types.js';
import type { Severity, SeverityCounts } from './severity/severity.js';
import type { Probe } from './verify/probe.js';

export type { TokenUsage };
export type { Severity, SeverityCounts };

/** One comment as the model proposes it (CONTRACT §7 "Agent review output"), after validation. */
export interface ProposedComment {
  path: string;
  line: number;
  side: DiffSide;
  startLine?: number;
  body: string;
  suggestion?: string;
  /** §21: how serious; `P2` when the model gave none. */
  severity: Severity;
  /** §21: how sure the model is, 0..1; null when it gave none. */
  confidence: number | null;
}

/** The model's review: a summary plus proposed inline comments. */
export interface AgentReviewOutput {
  summary: string;
  comments: ProposedComment[];
}

/** A finding kept inline, or a rejected one folded into the body; same shape (CONTRACT §7). */
export interface Finding {
  path: string;
  line: number;
  side: DiffSide;
  startLine?: number;
  body: string;
  suggestion?: string;
  /** §21: how serious; `P2` when the model gave none. */
  severity: Severity;
  /** §21: how sure the model is, 0..1; null when it gave none. */
  confidence: number | null;
  /**
   * §22: what running code said about it, when the verification stage selected it (`review.verify:
   * on`); absent for a finding the stage did not select.
   */
  verification?: Verification;
}

/** What a verification run concluded (§22). */
export type VerificationVerdict = 'confirmed' | 'refuted' | 'inconclusive';

/**
 * The outcome of verifying one finding (§22):
 * - `confirmed` / `refuted` / `inconclusive`: the run's verdict (a timeout or a failed run is
 *   `inconclusive` with `reason`);
 * - `skipped`: never run (no sandbox, or the cost cap already reached), with `reason`.
 * `command`, `output` and `explanation` are the run's own report, secrets masked.
 */
export interface Verification {
  status: VerificationVerdict | 'skipped';
  command: string;
  output: string;
  explanation: string;
  /** Why a run was skipped, timed out or failed (secret-free). */
  reason?: string;
  /** Wall time of the run, ms (0 when skipped). */
  durationMs: number;
  /**
   * A confirmed finding's probe: its command and the files the run created for it (secrets
   * masked), kept in the finding's marker so that applying the finding can run it again (§24).
   */
  probe?: Probe;
}

/** `receipt.verification` (§22): counts of findings by outcome and the stage's wall time. */
export interface VerificationReceipt {
  confirmed: number;
  refuted: number;
  inconclusive: number;
  skipped: number;
  /** Wall time of the stage, ms. */
  durationMs: number;
  /** Why the stage (or some runs) were skipped, when any were. */
  skippedReason?: string;
}

/**
 * §21: the bot's open findings on the pull request — this review's and earlier ones neither
 * addressed nor dismissed — and whether one is at or above `review.block_on`.
 */
export interface Verdict {
  /** `blocking`: one is at or above `review.block_on`; `clean`: none is open. */
  status: 'blocking' | 'non-blocking' | 'clean';
  counts: SeverityCounts;
  /** The `review.block_on` it was judged by (the repository's, else the server's). */
  blockOn: Severity;
}

/** What `executeReview()` returns; nothing has been posted yet (CONTRACT §7). */
export interface ExecuteReviewResult {
  summary: string;
  /** Findings whose lines are on the diff: postable inline. */
  findings: Finding[];
  /** Findings not on the diff, folded into `body` under "Additional notes (not in diff)". */
  rejected: Finding[];
  /** Markdown review body to post. */
  body: string;
  sessionId: string;
  model: string;
  usage: TokenUsage;
  /** Wall-clock time of the whole review, ms. */
  durationMs: number;
  /** Things the operator should know, e.g. a deprecated model with its end-of-life date (§3). */
  warnings: string[];
  /** What this review covered relative to the bot's last review of the pull request (§13). */
  incremental?: IncrementalInfo;
  /** Findings dropped because an earlier finding of the bot anchors the same code (§13). */
  repeats?: Finding[];
  /** Coverage, tokens and cost of this review (§15). */
  receipt?: ReviewReceipt;
  /** Ids of the repository's learnings given to the model (§20); present when learnings are on. */
  learningsApplied?: string[];
  /** Findings not posted because they match a dismissed one (§20, same shape as `rejected`). */
  dismissed?: Finding[];
  /** §21: findings less severe than `review.min_severity`, not posted (same shape as `rejected`). */
  belowThreshold?: Finding[];
  /** §21: the verdict over the bot's open findings on the pull request. */
  verdict?: Verdict;
  /**
   * §22: findings that running code refuted: not posted, not counted in the verdict (each with its
   * `verification`); present when `review.verify` is on.
   */
  refuted?: Finding[];
}

/** §13: how a review relates to the bot's previous review of the same pull request. */
export interface IncrementalInfo {
  /** Head SHA of the previous review, or null when there is none. */
  sinceSha: string | null;
  mode: 'full' | 'incremental' | 'unchanged';
  /** Why a review is full although an earlier one exists (e.g. force-push), when it is. */
  reason?: string;
}

/** §15: one file left out of a review, and why (e.g. `lock file`, `generated`, `review.ignore`). */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** §15: the facts of one review's cost and coverage. */
export interface ReviewReceipt {
  model: string;
  agentRuns: number;
  turns: number;
  toolCalls: number;
  tokens: { input: number; cacheWrite: number; cacheRead: number; output: number };
  /** USD; null when the model's price is unknown (never a guess). */
  costUsd: number | null;
  durationMs: number;
  files: { reviewed: number; skipped: SkippedFile[]; notReviewed: string[] };
  /** Why each file of `files.notReviewed` was not reviewed (path → reason); absent when none. */
  notReviewedReasons?: Record<string, string>;
  /** True when `review.max_cost_usd` stopped the runs. */
  capped?: boolean;
  /**
   * §21: this review's findings posted (inline and in the body) per severity, and how many were
   * less severe than `review.min_severity` and not posted.
   */
  findings?: { bySeverity: SeverityCounts; belowThreshold: number };
  /** §22: what the verification stage found; present when `review.verify` is on. */
  verification?: VerificationReceipt;
}
