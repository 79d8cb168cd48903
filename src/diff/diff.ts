/**
 * Parsing of per-file unified-diff patches into hunks with real line numbers on both sides.
 *
 * Input is the platform's per-file patch (`PullRequestFile.patch`): GitHub's `files[].patch` and
 * GitLab's `diffs[].diff` both start at the first `@@` hunk header and carry no `diff --git`/`---`/
 * `+++` lines. The parser is tolerant of what platforms and tools actually emit: CRLF line endings,
 * `\ No newline at end of file` markers, omitted hunk counts (`@@ -1 +1 @@` means one line), section
 * text after the closing `@@`, stray file headers before the first hunk, and context lines whose
 * single leading space was stripped by an editor.
 */
import type { FileStatus, PullRequestFile } from './types.js';

/** One line of a hunk. `oldLine` is set for context and `del` lines, `newLine` for context and `add`. */
export interface DiffLine {
  kind: 'context' | 'add' | 'del';
  /** 1-based line number in the base (old) file; LEFT side. */
  oldLine?: number;
  /** 1-based line number in the head (new) file; RIGHT side. */
  newLine?: number;
  /** The line's text without its `+`/`-`/space marker and without a trailing `\r`. */
  text: string;
}

/** One hunk: the numbers from its `@@ -oldStart,oldLines +newStart,newLines @@` header, plus its lines. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The full header line, e.g. `@@ -10,7 +10,8 @@ function foo()` (no trailing `\r`). */
  header: string;
  lines: DiffLine[];
}

/** One file of a pull request's diff, parsed. */
export interface FileDiff {
  /** Path in the head revision (for a removed file: its path in the base); what inline comments use. */
  path: string;
  /** Path in the base revision when the file was renamed or copied. */
  previousPath?: string;
  status: FileStatus;
  /** True when the platform gave no patch for a file with no counted line changes (binary content). */
  binary: boolean;
  /**
   * True when the platform gave no patch although lines changed: the diff was too large to return
   * (GitHub omits `patch` above its size limit). The file must be read from the workspace.
   */
  tooLarge?: boolean;
  /** Hunks in file order; empty for binary files, pure renames and files without a patch. */
  hunks: DiffHunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses one file's patch into hunks.
 *
 * Lines before the first `@@` header (e.g. `---`/`+++` file headers) are ignored. Within a hunk the
 * header counts decide where it ends, so a removed line that reads `-- x` is not mistaken for a file
 * header; lines after a hunk's counts are used up are ignored until the next header. A
 * `\ No newline at end of file` marker is not a line. An empty line inside a hunk is a context line
 * whose leading space was stripped. Never throws: text that is not a patch yields `[]`.
 *
 * @param patch GitHub-style per-file patch (`\n` or `\r\n` line endings); `''` yields `[]`.
 * @returns hunks in patch order, each line numbered on its side(s), 1-based.
 */
export function parsePatch(patch: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  if (patch.length === 0) return hunks;
  let hunk: DiffHunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  let start = 0;
  const length = patch.length;
  while (start <= length) {
    let end = patch.indexOf('\n', start);
    if (end === -1) end = length;
    const lineEnd = end > start && patch.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const first = lineEnd > start ? patch.charCodeAt(start) : -1;
    if (first === 64 /* @ */ && patch.startsWith('@@ -', start)) {
      const header = patch.slice(start, lineEnd);
      const match = HUNK_HEADER.exec(header);
      if (match) {
        const oldStart = Number(match[1]);
        const newStart = Number(match[3]);
        const oldLines = match[2] === undefined ? 1 : Number(match[2]);
        const newLines = match[4] === undefined ? 1 : Number(match[4]);
        hunk = { oldStart, oldLines, newStart, newLines, header, lines: [] };
        hunks.push(hunk);
        // A side with zero lines names the line *before* the hunk (`-0,0` for a new file).
        oldLine = oldLines === 0 ? oldStart + 1 : oldStart;
        newLine = newLines === 0 ? newStart + 1 : newStart;
        oldLeft = oldLines;
        newLeft = newLines;
        start = end + 1;
        continue;
      }
    }
    if (hunk !== undefined && (oldLeft > 0 || newLeft > 0)) {
      if (first === 43 /* + */ && newLeft > 0) {
        hunk.lines.push({ kind: 'add', newLine: newLine++, text: patch.slice(start + 1, lineEnd) });
        newLeft--;
      } else if (first === 45 /* - */ && oldLeft > 0) {
        hunk.lines.push({ kind: 'del', oldLine: oldLine++, text: patch.slice(start + 1, lineEnd) });
        oldLeft--;
      } else if ((first === 32 /* space */ || first === -1) && oldLeft > 0 && newLeft > 0) {
        // An empty line here is a context line whose single leading space was stripped, unless it
        // is the very end of the patch (the newline after the last line).
        if (first !== -1 || end < length) {
          const text = first === -1 ? '' : patch.slice(start + 1, lineEnd);
          hunk.lines.push({ kind: 'context', oldLine: oldLine++, newLine: newLine++, text });
          oldLeft--;
          newLeft--;
        }
      }
      // Anything else (`\ No newline at end of file`, or a line the counts do not allow) is skipped.
    }
    start = end + 1;
  }
  return hunks;
}

/**
 * Parses every file of a pull request.
 *
 * `binary` is set when the platform gave no `patch` and counted no changed lines, except for a pure
 * rename or copy (status `renamed`/`copied`, no changes), which is not binary and has no hunks.
 * A missing patch with counted changes sets `tooLarge` (GitHub omits patches above its size limit).
 * An empty-string patch is a file without hunks, not a binary one.
 *
 * @param files the platform's changed files (`Platform.listPullRequestFiles`).
 * @returns one FileDiff per file, same order.
 */
export function toFileDiffs(files: PullRequestFile[]): FileDiff[] {
  const result: FileDiff[] = [];
  for (const file of files) {
    const diff: FileDiff = { path: file.path, status: file.status, binary: false, hunks: [] };
    if (file.previousPath !== undefined && file.previousPath !== file.path) {
      diff.previousPath = file.previousPath;
    }
    if (file.patch !== undefined) {
      diff.hunks = parsePatch(file.patch);
    } else if (file.additions > 0 || file.deletions > 0) {
      diff.tooLarge = true;
    } else if (file.status !== 'renamed' && file.status !== 'copied') {
      diff.binary = true;
    }
    result.push(diff);
  }
  return result;
}
