/**
 * Diff positions of GitLab diff discussions (API docs `discussions.md`, "Create a new thread in the
 * merge request diff" and "Line code"):
 * - an added line is `new_line` only, a removed line `old_line` only, an unchanged (context) line
 *   both — sending only `new_line` for a context line is what makes GitLab answer
 *   `400 ... line_code can't be blank`;
 * - a multi-line comment adds `line_range.start`/`end`, each with a `line_code`
 *   `<sha1(new_path)>_<old>_<new>` and a `type` (`new` for added lines, otherwise `old`).
 *
 * `<old>`/`<new>` in a line code are GitLab's diff-parser counters (`Gitlab::Diff::Parser`): both
 * start at the hunk header's numbers and advance per line, so an added line carries the number of
 * the next old line (and a removed line the next new line) — `0` in a new (deleted) file, whose
 * header reads `-0,0` (`+0,0`).
 */
import { createHash } from 'node:crypto';
import type { FileLines, NumberedDiffLine } from '../../diff/positions.js';
import type { InlineComment } from '../types.js';
import type { DiffRefs } from './schemas.js';

/** `<sha1 hex of path>_<old>_<new>`: GitLab's line code (`Gitlab::Git.diff_line_code`). */
export function lineCode(path: string, oldPos: number, newPos: number): string {
  return `${createHash('sha1').update(path, 'utf8').digest('hex')}_${oldPos}_${newPos}`;
}

/** A line end of `line_range`. */
export interface LineRangeEnd {
  line_code: string;
  type: 'new' | 'old';
  old_line?: number;
  new_line?: number;
}

/** The `position` of a text diff note, as sent to `POST .../discussions` (snake_case, JSON). */
export interface TextPosition {
  position_type: 'text';
  base_sha: string;
  start_sha: string;
  head_sha: string;
  old_path: string;
  new_path: string;
  old_line?: number;
  new_line?: number;
  line_range?: { start: LineRangeEnd; end: LineRangeEnd };
}

/** Where a file sits in the diff: its paths and lines. */
export interface DiffFileLines {
  oldPath: string;
  newPath: string;
  lines: FileLines;
}

function lineNumbers(line: NumberedDiffLine): { old_line?: number; new_line?: number } {
  if (line.kind === 'add') return { new_line: line.newPos };
  if (line.kind === 'del') return { old_line: line.oldPos };
  return { old_line: line.oldPos, new_line: line.newPos };
}

function rangeEnd(path: string, line: NumberedDiffLine): LineRangeEnd {
  return {
    line_code: lineCode(path, line.oldPos, line.newPos),
    type: line.kind === 'add' ? 'new' : 'old',
    ...lineNumbers(line),
  };
}

/**
 * Builds the diff position of `comment` on `file` against the diff version `refs`; returns a reason
 * instead when a line of the comment is not on its side of the diff, or a range crosses hunks.
 * The position's own `old_line`/`new_line` are those of the range's last line (`comment.line`).
 */
export function buildPosition(
  refs: DiffRefs,
  file: DiffFileLines,
  comment: Pick<InlineComment, 'line' | 'side' | 'startLine'>,
): TextPosition | { error: string } {
  const end = file.lines.find(comment.side, comment.line);
  if (!end) return { error: `line ${comment.line} is not on the ${comment.side} side of the diff` };
  const position: TextPosition = {
    position_type: 'text',
    base_sha: refs.base_sha,
    start_sha: refs.start_sha,
    head_sha: refs.head_sha,
    old_path: file.oldPath,
    new_path: file.newPath,
    ...lineNumbers(end),
  };
  if (comment.startLine !== undefined && comment.startLine < comment.line) {
    const start = file.lines.find(comment.side, comment.startLine);
    if (!start) return { error: `line ${comment.startLine} is not on the ${comment.side} side of the diff` };
    if (start.hunk !== end.hunk) return { error: 'the range spans more than one hunk' };
    position.line_range = { start: rangeEnd(file.newPath, start), end: rangeEnd(file.newPath, end) };
  }
  return position;
}
