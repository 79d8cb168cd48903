/**
 * Severity of a finding (CONTRACT §21): `P0` must not merge (breaks the build, loses or corrupts
 * data, a security hole, a crash on a common path), `P1` a bug users will hit, `P2` a real but
 * minor problem, `P3` a nit or a suggestion. A finding the model gave no severity is `P2`; one it
 * gave no confidence has confidence `null`.
 */

/** The severities, most severe first. */
export const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;

/** One severity; `P0` is the most severe. */
export type Severity = (typeof SEVERITIES)[number];

/** The severity of a finding that states none. */
export const DEFAULT_SEVERITY: Severity = 'P2';

/** Counts per severity. */
export type SeverityCounts = Record<Severity, number>;

/** 0 for P0 … 3 for P3: a lower rank is more severe. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** True when `severity` is `threshold` or more severe (e.g. P0 and P1 are at or above P1). */
export function atOrAbove(severity: Severity, threshold: Severity): boolean {
  return severityRank(severity) <= severityRank(threshold);
}

/** True when `value` is one of `P0`…`P3` exactly. */
export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/**
 * A model's severity read leniently: `P0`…`P3` in any case and with surrounding space, or a bare
 * digit 0–3; anything else (absent, `null`, `"high"`, `"P5"`) is {@link DEFAULT_SEVERITY}.
 */
export function toSeverity(value: unknown): Severity {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 3) {
    return SEVERITIES[value]!;
  }
  if (typeof value !== 'string') return DEFAULT_SEVERITY;
  const match = /^\s*p?([0-3])\s*$/i.exec(value);
  return match ? SEVERITIES[Number(match[1])]! : DEFAULT_SEVERITY;
}

/**
 * A model's confidence read leniently: a number (or numeric string) from 0 to 1; a percentage
 * written as `"85%"` is 0.85. Anything else (absent, out of range, text) is `null`.
 */
export function toConfidence(value: unknown): number | null {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
    if (match) n = Number(match[1]) / (match[2] === '%' ? 100 : 1);
  }
  if (n === undefined || !Number.isFinite(n) || n < 0 || n > 1) return null;
  return n;
}

/** Zero counts. */
export function zeroCounts(): SeverityCounts {
  return { P0: 0, P1: 0, P2: 0, P3: 0 };
}

/** Counts of `items` per severity. */
export function countBySeverity(items: Iterable<{ severity: Severity }>): SeverityCounts {
  const counts = zeroCounts();
  for (const item of items) counts[item.severity] += 1;
  return counts;
}

/** The badge a posted finding opens with, e.g. `**P1**`. */
export function severityBadge(severity: Severity): string {
  return `**${severity}**`;
}

/**
 * `text` opening with the badge of `severity` (`**P1** text`), or the badge alone for no text. A
 * badge the model already wrote at the start is replaced (the finding's severity decides).
 */
export function withSeverityBadge(text: string, severity: Severity): string {
  const body = text.trim().replace(/^\*\*P[0-3]\*\*(?:\s+|$)/, '');
  return body.length > 0 ? `${severityBadge(severity)} ${body}` : severityBadge(severity);
}
