/** Records of the verification stage (CONTRACT §22). */
import type { TokenUsage } from '../../agent/token-usage.js';
import type { Finding, Verification, VerificationVerdict } from '../types.js';

export type { Verification, VerificationReceipt, VerificationVerdict } from '../types.js';

/** A review finding's severity (CONTRACT §21); P0 is the most severe. */
export type Severity = 'P0' | 'P1' | 'P2' | 'P3';

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

/** A finding with the result of its verification. */
export type VerifiedFinding<F extends Finding = Finding> = F & { verification: Verification };

/** Tokens and cost of the stage's runs (part of the review's, §22). */
export interface VerificationUsage {
  usage: TokenUsage;
  /** Sum of the runners' own cost figures, when they reported one. */
  costUsd?: number;
  /** Model calls made. */
  turns: number;
}
