/**
 * What the receipt (CONTRACT §15) says about severity (§21): the posted findings per severity and
 * how many were less severe than `review.min_severity` and not posted.
 */
import type { Finding, ReviewReceipt } from '../types.js';
import { countBySeverity, SEVERITIES } from './severity.js';

/** The receipt's `findings` from the posted findings (inline and in the body) and those set aside. */
export function severityFactsOf(
  kept: Finding[],
  rejected: Finding[],
  belowThreshold: Finding[] | undefined,
): NonNullable<ReviewReceipt['findings']> {
  return {
    bySeverity: countBySeverity([...kept, ...rejected]),
    belowThreshold: belowThreshold?.length ?? 0,
  };
}

/**
 * The receipt block's line, e.g. `- Findings: P0 ×1 · P1 ×0 · P2 ×2 · P3 ×0 · 3 below
 * review.min_severity (not posted)`; none when the receipt has no severity facts.
 */
export function severityReceiptLines(receipt: ReviewReceipt): string[] {
  const facts = receipt.findings;
  if (!facts) return [];
  const counts = SEVERITIES.map((s) => `${s} ×${facts.bySeverity[s]}`).join(' · ');
  const below =
    facts.belowThreshold > 0 ? ` · ${facts.belowThreshold} below \`review.min_severity\` (not posted)` : '';
  return [`- Findings: ${counts}${below}`];
}
