/**
 * A pull request's files computed by git from the real repository, the way GitHub reports them:
 * the merge-base diff `git diff -M base...head`, one entry per file with GitHub's status names and
 * `patch` = the file's hunks from the first `@@` line on (no `diff --git`/`index`/`---`/`+++`
 * headers, `\ No newline at end of file` kept, no trailing newline, absent for binary files and
 * for changes without hunks such as a pure rename).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gitEnv } from '../git-fixtures.js';

const execFileAsync = promisify(execFile);

/** GitHub's `status` values of a pull-request file. */
export type DiffStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed';

/** One changed file of a pull request. */
export interface DiffFile {
  /** Path in the head revision (removed files: path in the base). */
  filename: string;
  previousFilename?: string;
  status: DiffStatus;
  additions: number;
  deletions: number;
  /** Blob SHA of the file in head (removed files: in base). */
  sha: string;
  binary: boolean;
  patch?: string;
}

/** Runs git in `cwd` (no global config) and returns stdout; throws with git's stderr on failure. */
export async function gitOutput(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync('git', args, {
      cwd,
      env: gitEnv(),
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`git ${args.join(' ')} failed: ${stderr.trim()}`, { cause: error });
  }
}

const DIFF_OPTIONS = [
  '-c',
  'core.quotepath=false',
  'diff',
  '-M',
  '--find-renames',
  '--no-color',
  '--no-ext-diff',
];

const STATUS: Record<string, DiffStatus> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'changed',
};

interface RawEntry {
  status: DiffStatus;
  oldSha: string;
  newSha: string;
  path: string;
  oldPath?: string;
}

function parseRaw(out: string): RawEntry[] {
  const parts = out.split('\0');
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < parts.length) {
    const meta = parts[i] ?? '';
    if (!meta.startsWith(':')) {
      i += 1;
      continue;
    }
    const [, , oldSha = '', newSha = '', code = ''] = meta.slice(1).split(' ');
    const letter = code.charAt(0);
    const status = STATUS[letter] ?? 'modified';
    if (letter === 'R' || letter === 'C') {
      entries.push({ status, oldSha, newSha, oldPath: parts[i + 1] ?? '', path: parts[i + 2] ?? '' });
      i += 3;
    } else {
      entries.push({ status, oldSha, newSha, path: parts[i + 1] ?? '' });
      i += 2;
    }
  }
  return entries;
}

function parseNumstat(out: string): Array<{ additions: number; deletions: number; binary: boolean }> {
  const parts = out.split('\0');
  const stats: Array<{ additions: number; deletions: number; binary: boolean }> = [];
  let i = 0;
  while (i < parts.length) {
    const entry = parts[i] ?? '';
    const fields = entry.split('\t');
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

/** Splits full `git diff` output into per-file sections and keeps each section's hunks. */
function splitPatches(out: string): Array<string | undefined> {
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
 * Computes the files of `base...head` in the repository at `repoPath` (bare or not). `base` and
 * `head` are any revisions git accepts. Throws when git fails (e.g. an unknown revision).
 */
export async function computeDiffFiles(repoPath: string, base: string, head: string): Promise<DiffFile[]> {
  const range = `${base}...${head}`;
  const [raw, numstat, patch] = await Promise.all([
    gitOutput(repoPath, [...DIFF_OPTIONS, '-z', '--raw', '--abbrev=40', range]),
    gitOutput(repoPath, [...DIFF_OPTIONS, '-z', '--numstat', range]),
    gitOutput(repoPath, [...DIFF_OPTIONS, '--src-prefix=a/', '--dst-prefix=b/', range]),
  ]);
  const entries = parseRaw(raw);
  const stats = parseNumstat(numstat);
  const patches = splitPatches(patch);
  if (stats.length !== entries.length || patches.length !== entries.length) {
    throw new Error(`git diff ${range}: raw, numstat and patch disagree on the number of files`);
  }
  return entries.map((entry, i) => {
    const stat = stats[i] ?? { additions: 0, deletions: 0, binary: false };
    const file: DiffFile = {
      filename: entry.path,
      status: entry.status,
      additions: stat.additions,
      deletions: stat.deletions,
      sha: entry.status === 'removed' ? entry.oldSha : entry.newSha,
      binary: stat.binary,
    };
    if (entry.oldPath !== undefined) file.previousFilename = entry.oldPath;
    const filePatch = patches[i];
    if (filePatch !== undefined && !stat.binary) file.patch = filePatch;
    return file;
  });
}

/** The unified diff of `base...head` with all headers, as GitHub serves `application/vnd.github.diff`. */
export async function computeFullDiff(
  repoPath: string,
  base: string,
  head: string,
  prefixes: { src: string; dst: string } = { src: 'a/', dst: 'b/' },
): Promise<string> {
  return gitOutput(repoPath, [
    ...DIFF_OPTIONS,
    `--src-prefix=${prefixes.src}`,
    `--dst-prefix=${prefixes.dst}`,
    `${base}...${head}`,
  ]);
}
