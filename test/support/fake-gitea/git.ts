/**
 * The fake's git side, as Gitea computes it: a pull request's diff is `git diff merge-base...head`
 * (`GET .../pulls/{index}.diff` and the file list), and the compare API lists the commits from
 * the merge base to head with the files each touched. Each file's lines are numbered here with the
 * diff-parser counters (independently of the product's code) to place inline comments.
 */
import { computeDiffFiles, computeFullDiff, gitOutput, type DiffFile } from '../fake-github/diff.js';
import { numberLines } from '../fake-gitlab/diff.js';
import type { PullRecord } from './state.js';

/** `git rev-parse --verify <rev>^{commit}`, or undefined when there is no such commit. */
export async function revParse(repoPath: string, rev: string): Promise<string | undefined> {
  try {
    return (
      (await gitOutput(repoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Head and base SHAs of a pull request now. Throws when a branch is missing. */
export async function pullShas(pull: PullRecord): Promise<{ head: string; base: string; mergeBase: string }> {
  const repo = pull.repo.bareRepoPath;
  const head = await revParse(repo, `refs/heads/${pull.headBranch}`);
  const base = await revParse(repo, `refs/heads/${pull.baseBranch}`);
  if (!head || !base)
    throw new Error(`fake Gitea: a branch of ${pull.repo.fullName}#${pull.index} is missing`);
  const mergeBase = (await gitOutput(repo, ['merge-base', base, head])).trim();
  return { head, base, mergeBase };
}

/** The pull request's files (`git diff -M base...head`). */
export async function pullFiles(pull: PullRecord): Promise<DiffFile[]> {
  const { head, base } = await pullShas(pull);
  return computeDiffFiles(pull.repo.bareRepoPath, base, head);
}

/** The pull request's unified diff with headers. */
export async function pullDiff(pull: PullRecord): Promise<string> {
  const { head, base } = await pullShas(pull);
  return computeFullDiff(pull.repo.bareRepoPath, base, head);
}

/**
 * Where Gitea would find signed line `line` (negative = old side) of `path` in the pull request's
 * diff: the hunk text (`diff_hunk`), or '' when the line is in no hunk of that side.
 */
export async function hunkAround(pull: PullRecord, path: string, line: number): Promise<string> {
  const file = (await pullFiles(pull)).find((f) => f.filename === path);
  if (!file?.patch) return '';
  const hunks = file.patch.split(/\n(?=@@ )/);
  for (const hunk of hunks) {
    const found = numberLines(hunk).some((l) =>
      line > 0 ? l.kind !== 'del' && l.newPos === line : l.kind !== 'add' && l.oldPos === -line,
    );
    if (found) return hunk;
  }
  return '';
}

/** One commit of a comparison. */
export interface ComparedCommit {
  sha: string;
  parents: string[];
  files: Array<{ filename: string; status: string }>;
}

/** Commits from the merge base of `base` and `head` to `head`, newest first; undefined for an unknown SHA. */
export async function compareCommits(
  repoPath: string,
  base: string,
  head: string,
): Promise<ComparedCommit[] | undefined> {
  const b = await revParse(repoPath, base);
  const h = await revParse(repoPath, head);
  if (!b || !h) return undefined;
  const mergeBase = (await gitOutput(repoPath, ['merge-base', b, h])).trim();
  const log = (await gitOutput(repoPath, ['rev-list', '--parents', `${mergeBase}..${h}`])).trim();
  const out: ComparedCommit[] = [];
  for (const line of log === '' ? [] : log.split('\n')) {
    const [sha = '', ...parents] = line.split(' ');
    const names = await gitOutput(repoPath, [
      'diff-tree',
      '--root',
      '-r',
      '--no-commit-id',
      '--name-status',
      '-m',
      '--first-parent',
      sha,
    ]);
    const files = names
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const [code = 'M', ...paths] = l.split('\t');
        const status = code.startsWith('A') ? 'added' : code.startsWith('D') ? 'removed' : 'modified';
        return { filename: paths.at(-1) ?? '', status };
      });
    out.push({ sha, parents, files });
  }
  return out;
}

/** Text of `path` at `ref`, or undefined when absent. */
export async function fileAt(repoPath: string, ref: string, path: string): Promise<Buffer | undefined> {
  const sha = await revParse(repoPath, ref);
  if (!sha) return undefined;
  try {
    const out = await gitOutput(repoPath, ['cat-file', '-e', `${sha}:${path}`]).then(() =>
      gitOutput(repoPath, ['show', `${sha}:${path}`]),
    );
    return Buffer.from(out, 'utf8');
  } catch {
    return undefined;
  }
}
