/**
 * Turns the output of `git diff` (three forms of the same comparison: `--raw -z`, `--numstat -z`
 * and the patch) into the `PullRequestFile[]` a platform reports: GitHub's status names, counts,
 * and `patch` = the file's hunks from the first `@@` line on (no `diff --git`/`index`/`---`/`+++`
 * headers), absent for binary files and for changes without hunks (a pure rename, a mode change).
 */
import type { FileStatus, PullRequestFile } from '../platforms/types.js';

const STATUS: Record<string, FileStatus> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'changed',
};

/** One entry of `git diff --raw -z`. */
interface RawEntry {
  status: FileStatus;
  path: string;
  oldPath?: string;
}

/** Parses `git diff --raw -z` (`:<modes> <shas> <status>\0<path>\0[<path>\0]`). */
export function parseRawZ(out: string): RawEntry[] {
  const parts = out.split('\0');
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < parts.length) {
    const meta = parts[i] ?? '';
    if (!meta.startsWith(':')) {
      i += 1;
      continue;
    }
    const letter = (meta.slice(1).split(' ')[4] ?? '').charAt(0);
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      entries.push({ status, oldPath: parts[i + 1] ?? '', path: parts[i + 2] ?? '' });
      i += 3;
    } else {
      entries.push({ status, path: parts[i + 1] ?? '' });
      i += 2;
    }
  }
  return entries;
}

/** One entry of `git diff --numstat -z`: line counts, or binary (`-\t-`). */
interface NumStat {
  additions: number;
  deletions: number;
  binary: boolean;
}

/** Parses `git diff --numstat -z` (renames: `a\td\t\0old\0new\0`). */
export function parseNumstatZ(out: string): NumStat[] {
  const parts = out.split('\0');
  const stats: NumStat[] = [];
  let i = 0;
  while (i < parts.length) {
    const fields = (parts[i] ?? '').split('\t');
    if (fields.length < 3) {
      i += 1;
      continue;
    }
    const [add = '', del = '', path = ''] = fields;
    const binary = add === '-' && del === '-';
    stats.push({ additions: binary ? 0 : Number(add), deletions: binary ? 0 : Number(del), binary });
    i += path === '' ? 3 : 1;
  }
  return stats;
}

/** Splits a full `git diff` patch into per-file hunk texts (undefined: no hunks), in file order. */
export function splitPatches(out: string): Array<string | undefined> {
  const sections: string[][] = [];
  for (const line of out.split('\n')) {
    if (line.startsWith('diff --git ')) sections.push([]);
    else sections.at(-1)?.push(line);
  }
  return sections.map((lines) => {
    const first = lines.findIndex((l) => l.startsWith('@@'));
    if (first < 0) return undefined;
    const hunks = lines.slice(first);
    while (hunks.length > 0 && hunks.at(-1) === '') hunks.pop();
    return hunks.join('\n');
  });
}

/**
 * Combines the three outputs of one comparison into files.
 * @throws Error when they disagree on the number of files (they come from the same comparison).
 */
export function toPullRequestFiles(raw: string, numstat: string, patch: string): PullRequestFile[] {
  const entries = parseRawZ(raw);
  const stats = parseNumstatZ(numstat);
  const patches = splitPatches(patch);
  if (stats.length !== entries.length || patches.length !== entries.length) {
    throw new Error(
      `git diff: raw (${entries.length}), numstat (${stats.length}) and patch (${patches.length}) disagree on the number of files`,
    );
  }
  return entries.map((entry, i) => {
    const stat = stats[i] ?? { additions: 0, deletions: 0, binary: false };
    const file: PullRequestFile = {
      path: entry.path,
      status: entry.status,
      additions: stat.additions,
      deletions: stat.deletions,
    };
    if (entry.oldPath !== undefined) file.previousPath = entry.oldPath;
    const filePatch = patches[i];
    if (filePatch !== undefined && !stat.binary) file.patch = filePatch;
    return file;
  });
}

/**
 * The patch of a new file holding `content` (what `git diff` prints for an added file): one hunk
 * `@@ -0,0 +1,N @@` of `+` lines, `\ No newline at end of file` when the last line has no newline.
 * @returns undefined for an empty file (no hunks).
 */
export function newFilePatch(content: string): string | undefined {
  if (content === '') return undefined;
  const endsWithNewline = content.endsWith('\n');
  const lines = (endsWithNewline ? content.slice(0, -1) : content).split('\n');
  const count = lines.length === 1 ? '1' : `1,${lines.length}`;
  const body = lines.map((line) => `+${line}`);
  if (!endsWithNewline) body.push('\\ No newline at end of file');
  return [`@@ -0,0 +${count} @@`, ...body].join('\n');
}
