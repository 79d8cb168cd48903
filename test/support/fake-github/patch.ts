/**
 * Reading a GitHub `patch` (hunks only) line by line: which old/new line numbers each diff line
 * carries, which hunk it belongs to, and its GitHub "position" (1 = the line just below the first
 * `@@` header; later `@@` headers count as positions too, as GitHub documents for review comments).
 */

/** One line of a patch below a hunk header. */
export interface PatchLine {
  kind: 'context' | 'added' | 'removed' | 'no-newline';
  /** Line number in the old (base) file: context and removed lines. */
  oldLine?: number;
  /** Line number in the new (head) file: context and added lines. */
  newLine?: number;
  /** Index of the hunk (0-based). */
  hunk: number;
  /** GitHub diff position (1-based). */
  position: number;
  /** Index of this line in the patch's line array (0 = first `@@` header). */
  index: number;
}

/** A parsed patch: its raw lines and the diff lines with numbers. */
export interface ParsedPatch {
  rawLines: string[];
  lines: PatchLine[];
  /** Index in `rawLines` of each hunk's `@@` header. */
  hunkStarts: number[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Parses a patch as produced by `computeDiffFiles`. Lines before the first `@@` are ignored. */
export function parsePatch(patch: string): ParsedPatch {
  const rawLines = patch.split('\n');
  const lines: PatchLine[] = [];
  const hunkStarts: number[] = [];
  let oldLine = 0;
  let newLine = 0;
  let position = 0;
  let hunk = -1;
  rawLines.forEach((text, index) => {
    const header = HUNK_HEADER.exec(text);
    if (header) {
      if (hunk >= 0) position += 1;
      hunk += 1;
      hunkStarts.push(index);
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      return;
    }
    if (hunk < 0) return;
    position += 1;
    const base = { hunk, position, index };
    if (text.startsWith('+')) lines.push({ ...base, kind: 'added', newLine: newLine++ });
    else if (text.startsWith('-')) lines.push({ ...base, kind: 'removed', oldLine: oldLine++ });
    else if (text.startsWith('\\')) lines.push({ ...base, kind: 'no-newline' });
    else lines.push({ ...base, kind: 'context', oldLine: oldLine++, newLine: newLine++ });
  });
  return { rawLines, lines, hunkStarts };
}

/** Side of a diff as GitHub names it. */
export type Side = 'LEFT' | 'RIGHT';

/** The diff line showing `line` on `side` (RIGHT: added/context by new number; LEFT: removed/context by old number). */
export function findLine(parsed: ParsedPatch, side: Side, line: number): PatchLine | undefined {
  return parsed.lines.find((l) =>
    side === 'RIGHT' ? l.kind !== 'removed' && l.newLine === line : l.kind !== 'added' && l.oldLine === line,
  );
}

/** The diff line at GitHub `position`, if any. */
export function findPosition(parsed: ParsedPatch, position: number): PatchLine | undefined {
  return parsed.lines.find((l) => l.position === position && l.kind !== 'no-newline');
}

/** GitHub's `diff_hunk` of a comment: the hunk's `@@` header through the commented line. */
export function diffHunkUpTo(parsed: ParsedPatch, target: PatchLine): string {
  const start = parsed.hunkStarts[target.hunk] ?? 0;
  return parsed.rawLines.slice(start, target.index + 1).join('\n');
}
