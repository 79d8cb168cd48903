/** Records of the verification stage (CONTRACT §22). */
import type { TokenUsage } from '../../agent/token-usage.js';
import type { Finding } from '../types.js';

/** A review finding's severity (CONTRACT §21); P0 is the most severe. */
export type Severity = 'P0' | 'P1' | 'P2' | 'P3';

/** What a verification run concluded. */
export type VerificationVerdict = 'confirmed' | 'refuted' | 'inconclusive';

/**
 * The model's answer of one verification run, checked: `command` and `output` as it reported them
 * (not yet masked or cut; `renderEvidence` does that).
 */
export interface VerificationAnswer {
  verdict: VerificationVerdict;
  command: string;
  output: string;
  explanation: string;
}

/**
 * The outcome of verifying one finding:
 * - `confirmed` / `refuted` / `inconclusive`: the run's verdict (a timeout or a failed run is
 *   `inconclusive` with `reason`);
 * - `skipped`: never run (no sandbox), with `reason`.
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
}

/** A finding with the result of its verification. */
export type VerifiedFinding<F extends Finding = Finding> = F & { verification: Verification };

/** `receipt.verification` (CONTRACT §22): counts of findings by outcome and the stage's wall time. */
export interface VerificationReceipt {
  confirmed: number;
  refuted: number;
  inconclusive: number;
  skipped: number;
  durationMs: number;
  /** Why the stage (or some runs) were skipped, when any were. */
  skippedReason?: string;
}

/** Tokens and cost of the stage's runs (part of the review's, §22). */
export interface VerificationUsage {
  usage: TokenUsage;
  /** Sum of the runners' own cost figures, when they reported one. */
  costUsd?: number;
  /** Model calls made. */
  turns: number;
}
