/**
 * Severity as `reviewbot eval` and `reviewbot stats` read it (CONTRACT §21): `P0`…`P3`, `P2` for a
 * finding that states none. Isolated here so that reading a finding's severity is one helper.
 */

/** The severities, most severe first. */
export const EVAL_SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;

/** One severity; `P0` is the most severe. */
export type EvalSeverity = (typeof EVAL_SEVERITIES)[number];

/** The severity of a finding (or golden comment) that states none (§21). */
export const UNSTATED_SEVERITY: EvalSeverity = 'P2';

/** True when `value` is `P0`…`P3` exactly. */
export function isEvalSeverity(value: unknown): value is EvalSeverity {
  return typeof value === 'string' && (EVAL_SEVERITIES as readonly string[]).includes(value);
}

/** A finding's severity: its `severity` field when it is `P0`…`P3`, else `P2`. */
export function findingSeverity(finding: object): EvalSeverity {
  const severity = (finding as { severity?: unknown }).severity;
  return isEvalSeverity(severity) ? severity : UNSTATED_SEVERITY;
}

/** A count per severity, all zero. */
export function zeroCounts(): Record<EvalSeverity, number> {
  return { P0: 0, P1: 0, P2: 0, P3: 0 };
}
