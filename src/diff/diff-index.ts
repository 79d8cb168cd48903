/**
 * Fast lookups of "is this line range commentable?" over a parsed pull-request diff.
 *
 * Within one hunk, the lines of each side are consecutive: RIGHT holds the context and added lines
 * numbered `newStart..newStart+k-1`, LEFT the context and removed lines numbered
 * `oldStart..oldStart+m-1`. So each hunk is one interval per side, and a range is on the diff when
 * one hunk's interval on that side contains it. Lookups are a binary search over a file's hunks:
 * O(log hunks), memory O(hunks), whatever the line numbers.
 */
import type { DiffSide } from './types.js';
import type { FileDiff } from './diff.js';

/** Per file and side: the hunks' line intervals, sorted by first line and not overlapping. */
interface SideIntervals {
  firsts: number[];
  lasts: number[];
}

interface FileIntervals {
  RIGHT: SideIntervals;
  LEFT: SideIntervals;
}

function intervalsOf(file: FileDiff): FileIntervals {
  const right: Array<[number, number]> = [];
  const left: Array<[number, number]> = [];
  for (const hunk of file.hunks) {
    let newFirst = 0;
    let newLast = 0;
    let oldFirst = 0;
    let oldLast = 0;
    for (const line of hunk.lines) {
      if (line.newLine !== undefined) {
        if (newFirst === 0) newFirst = line.newLine;
        newLast = line.newLine;
      }
      if (line.oldLine !== undefined) {
        if (oldFirst === 0) oldFirst = line.oldLine;
        oldLast = line.oldLine;
      }
    }
    if (newFirst > 0) right.push([newFirst, newLast]);
    if (oldFirst > 0) left.push([oldFirst, oldLast]);
  }
  return { RIGHT: toSide(right), LEFT: toSide(left) };
}

function toSide(intervals: Array<[number, number]>): SideIntervals {
  intervals.sort((a, b) => a[0] - b[0]);
  return { firsts: intervals.map((i) => i[0]), lasts: intervals.map((i) => i[1]) };
}

/** Index of the last interval whose first line is <= `line`, or -1. */
function findInterval(side: SideIntervals, line: number): number {
  let low = 0;
  let high = side.firsts.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((side.firsts[mid] as number) <= line) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/**
 * Commentable lines of a pull request's diff, by file path (head path; GitHub and GitLab anchor
 * comments on renamed files, LEFT side included, to the new path).
 */
export class DiffIndex {
  private readonly files: Map<string, FileIntervals>;

  private constructor(files: Map<string, FileIntervals>) {
    this.files = files;
  }

  /**
   * Builds the index in O(total diff lines).
   *
   * @param files parsed diff (`toFileDiffs`); every file is known to `hasFile`, binary ones included.
   */
  static fromFiles(files: FileDiff[]): DiffIndex {
    const map = new Map<string, FileIntervals>();
    for (const file of files) map.set(file.path, intervalsOf(file));
    return new DiffIndex(map);
  }

  /** True when `path` (head path, exact match) is one of the pull request's changed files. */
  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  /**
   * True when every line `start..end` exists on `side` of `path`'s diff AND all are in one hunk
   * (GitHub rejects a multi-line comment spanning hunks with 422 "line must be part of the diff").
   * RIGHT lines are added and context lines in new-file numbering; LEFT lines are removed and
   * context lines in old-file numbering. False for unknown paths, non-integer or < 1 lines, and
   * `start > end`.
   *
   * @param start first line of the range (equal to `end` for a single line), 1-based.
   * @param end last line of the range, 1-based.
   */
  isRangeOnDiff(path: string, side: DiffSide, start: number, end: number): boolean {
    const hunk = this.hunkOf(path, side, start);
    if (hunk === undefined || !Number.isInteger(end) || end < start) return false;
    const intervals = this.files.get(path)?.[side];
    return intervals !== undefined && end <= (intervals.lasts[hunk] as number);
  }

  /**
   * Which hunk holds `line` on `side` of `path`: its ordinal among the hunks that have lines on that
   * side (0-based), or `undefined` when the line is not on the diff.
   */
  hunkOf(path: string, side: DiffSide, line: number): number | undefined {
    if (!Number.isInteger(line) || line < 1) return undefined;
    const intervals = this.files.get(path)?.[side];
    if (intervals === undefined) return undefined;
    const index = findInterval(intervals, line);
    if (index < 0 || line > (intervals.lasts[index] as number)) return undefined;
    return index;
  }

  /** Paths of every file in the index, in diff order. */
  paths(): string[] {
    return [...this.files.keys()];
  }
}
