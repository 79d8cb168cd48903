/**
 * Diff line positions shared by the platforms that anchor inline comments by old/new line numbers
 * (GitLab, Gitea, Bitbucket, Azure DevOps): every line of a file's diff numbered on both sides, and
 * looked up by side and number.
 */
import type { DiffHunk } from './diff.js';
import { parsePatch } from './diff.js';
import type { DiffSide } from './types.js';

/**
 * One diff line with both files' counters, as diff parsers number them (GitLab's
 * `Gitlab::Diff::Parser`, Gitea's `services/gitdiff`): both start at the hunk header's numbers and
 * advance per line, so an added line carries the number of the next old line (and a removed line the
 * next new line).
 */
export interface NumberedDiffLine {
  kind: 'add' | 'del' | 'context';
  /** Old-file counter (the line's old number for `del`/`context`). */
  oldPos: number;
  /** New-file counter (the line's new number for `add`/`context`). */
  newPos: number;
  /** Ordinal of the hunk holding the line (0-based). */
  hunk: number;
}

/** Numbers every line of `hunks` with both counters (see {@link NumberedDiffLine}). */
export function numberLines(hunks: DiffHunk[]): NumberedDiffLine[] {
  const out: NumberedDiffLine[] = [];
  for (const [index, hunk] of hunks.entries()) {
    let oldPos = hunk.oldStart;
    let newPos = hunk.newStart;
    for (const line of hunk.lines) {
      out.push({ kind: line.kind, oldPos, newPos, hunk: index });
      if (line.kind !== 'add') oldPos++;
      if (line.kind !== 'del') newPos++;
    }
  }
  return out;
}

/** The lines of one file's diff, looked up by side and number. */
export class FileLines {
  private readonly right = new Map<number, NumberedDiffLine>();
  private readonly left = new Map<number, NumberedDiffLine>();

  constructor(lines: NumberedDiffLine[]) {
    for (const line of lines) {
      if (line.kind !== 'del') this.right.set(line.newPos, line);
      if (line.kind !== 'add') this.left.set(line.oldPos, line);
    }
  }

  /** Parses one file's unified-diff hunks. */
  static fromPatch(patch: string): FileLines {
    return new FileLines(numberLines(parsePatch(patch)));
  }

  /** The diff line numbered `line` on `side` (RIGHT: added or context; LEFT: removed or context). */
  find(side: DiffSide, line: number): NumberedDiffLine | undefined {
    return (side === 'RIGHT' ? this.right : this.left).get(line);
  }
}
