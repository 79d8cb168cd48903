/**
 * The judge's answer made safe (CONTRACT §23): which findings match which golden comments, one to
 * one. The model's list is never trusted for that: pairs whose indexes are not whole numbers in
 * range are dropped, and so is every pair naming a finding or a golden comment an earlier pair
 * already used (the first pair wins).
 */
import { extractJsonValue } from './extract-matches.js';

/** One match: finding `[F<finding>]` reports the issue of golden comment `[G<golden>]`. */
export interface Match {
  finding: number;
  golden: number;
}

/** The judge's pairs after the one-to-one rule. */
export interface CheckedMatches {
  matches: Match[];
  /** Pairs dropped: malformed, out of range, or naming an item an earlier pair used. */
  dropped: number;
}

/** An index as a judge may write it: `3`, `"3"`, `"F3"` / `"G3"`, `"[F3]"`. */
function toIndex(value: unknown, letter: 'F' | 'G'): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = new RegExp(`^\\s*\\[?${letter}?(\\d{1,6})\\]?\\s*$`, 'i').exec(value);
  return match ? Number(match[1]) : undefined;
}

/**
 * Applies the one-to-one rule to a judge's `matches` list (any value: a non-array counts as none).
 * @param findings number of findings `[F0]…`; @param golden number of golden comments `[G0]…`.
 */
export function enforceOneToOne(raw: unknown, findings: number, golden: number): CheckedMatches {
  const list = Array.isArray(raw) ? (raw as unknown[]) : [];
  const usedF = new Set<number>();
  const usedG = new Set<number>();
  const matches: Match[] = [];
  for (const entry of list) {
    const pair = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const f = toIndex(pair.finding, 'F');
    const g = toIndex(pair.golden, 'G');
    if (f === undefined || g === undefined || f >= findings || g >= golden) continue;
    if (usedF.has(f) || usedG.has(g)) continue;
    usedF.add(f);
    usedG.add(g);
    matches.push({ finding: f, golden: g });
  }
  return { matches, dropped: list.length - matches.length };
}

/**
 * The judge's `matches` list from its answer: the `submit_matches` arguments when it called the
 * tool, else the JSON object `{"matches": [...]}` in its text (prose and code fences around it
 * tolerated, slightly malformed JSON repaired).
 * @returns the raw list, or undefined when the answer holds none (garbage: the case fails).
 */
export function judgeMatchesOf(submitted: unknown, text: string): unknown[] | undefined {
  const fromTool = matchesField(submitted);
  if (fromTool) return fromTool;
  return matchesField(extractJsonValue(text));
}

function matchesField(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const matches = (value as { matches?: unknown }).matches;
  return Array.isArray(matches) ? matches : undefined;
}
