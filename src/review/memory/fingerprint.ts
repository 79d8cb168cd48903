/**
 * Fingerprints of anchored code (CONTRACT §13): a finding is identified by its file and the text of
 * the lines it anchors, whitespace-normalized, never by its line numbers or wording. The same code
 * moved down by an edit above it keeps its fingerprint; an edit to the code itself changes it.
 */
import { createHash } from 'node:crypto';

/**
 * The anchored lines, normalized: each line trimmed, inner runs of whitespace made one space,
 * blank lines dropped (so re-indenting or reflowing blank lines does not count as a change).
 */
export function normalizeLines(lines: readonly string[]): string[] {
  return lines.map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l.length > 0);
}

/**
 * The fingerprint of `lines` of file `path`: the first 16 hex digits of SHA-256 over the path and
 * the normalized lines. Returns undefined when no line has text (nothing to recognise later).
 */
export function fingerprintLines(path: string, lines: readonly string[]): string | undefined {
  const normalized = normalizeLines(lines);
  if (normalized.length === 0) return undefined;
  return createHash('sha256')
    .update(`${path}\n${normalized.join('\n')}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * True when file `path` with `content` still holds code whose fingerprint is `fp` over `n`
 * normalized lines, anywhere in the file (line numbers do not matter).
 */
export function containsFingerprint(path: string, content: string, fp: string, n: number): boolean {
  if (n < 1) return false;
  const lines = normalizeLines(content.replace(/\r\n/g, '\n').split('\n'));
  for (let i = 0; i + n <= lines.length; i++) {
    if (fingerprintLines(path, lines.slice(i, i + n)) === fp) return true;
  }
  return false;
}
