/** Severity of a finding as the verification stage reads it (CONTRACT §21: no severity = P2). */
import type { Severity } from './types.js';

const ORDER: Record<Severity, number> = { P0: 0, P1: 1, P2: 2, P3: 3 };

/**
 * The finding's severity: its `severity` field when it holds one of `P0`..`P3`, else `P2` (§21).
 * The one place that reads it, so the stage works on findings with or without the field.
 */
export function findingSeverity(finding: object): Severity {
  const value = (finding as { severity?: unknown }).severity;
  return typeof value === 'string' && value in ORDER ? (value as Severity) : 'P2';
}

/** Negative when `a` is more severe than `b`, 0 when equal (for `Array.prototype.sort`). */
export function compareSeverity(a: Severity, b: Severity): number {
  return ORDER[a] - ORDER[b];
}

/** True when `severity` is at or above `threshold` (P0 is above P1). */
export function atOrAbove(severity: Severity, threshold: Severity): boolean {
  return ORDER[severity] <= ORDER[threshold];
}
