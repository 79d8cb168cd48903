/**
 * The fake's git side, as Bitbucket Cloud computes it: a pull request's diff is the "topic" diff
 * (`git diff merge-base...head`); a spec `A..B` names the changes first (`A`), then what they are
 * compared with (`B`), the reverse of `git diff`.
 */
import { computeDiffFiles, computeFullDiff, gitOutput, type DiffFile } from '../fake-github/diff.js';
import { numberLines } from '../fake-gitlab/diff.js';

/** `git rev-parse --verify <rev>^{commit}` (abbreviations resolved), or undefined. */
export async function revParse(repoPath: string, rev: string): Promise<string | undefined> {
  if (!/^[0-9a-zA-Z_./-]+$/.test(rev)) return undefined;
  try {
    return (
      (await gitOutput(repoPath, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Changed files of the changes `changes` compared with `against` (three-dot). */
export function specFiles(repoPath: string, changes: string, against: string): Promise<DiffFile[]> {
  return computeDiffFiles(repoPath, against, changes);
}

/** Unified diff of `changes` compared with `against` (three-dot). */
export function specDiff(repoPath: string, changes: string, against: string): Promise<string> {
  return computeFullDiff(repoPath, against, changes);
}

/** The merge base of two commits. */
export async function mergeBase(repoPath: string, a: string, b: string): Promise<string> {
  return (await gitOutput(repoPath, ['merge-base', a, b])).trim();
}

/** Commits of `head` not in `base`, newest first. */
export async function commitsBetween(repoPath: string, base: string, head: string): Promise<string[]> {
  const out = (await gitOutput(repoPath, ['rev-list', `${base}..${head}`])).trim();
  return out === '' ? [] : out.split('\n');
}

/** The text of `path` at `commit`, or undefined when absent. */
export async function fileAt(repoPath: string, commit: string, path: string): Promise<string | undefined> {
  try {
    return await gitOutput(repoPath, ['show', `${commit}:${path}`]);
  } catch {
    return undefined;
  }
}

/** True when line `line` of `path` is in the patch on the new (`to`) or old (`from`) side. */
export function lineInPatch(file: DiffFile | undefined, side: 'to' | 'from', line: number): boolean {
  if (!file?.patch) return false;
  return numberLines(file.patch).some((l) =>
    side === 'to' ? l.kind !== 'del' && l.newPos === line : l.kind !== 'add' && l.oldPos === line,
  );
}
