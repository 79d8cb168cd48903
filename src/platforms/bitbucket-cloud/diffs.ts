/**
 * A pull request's (or two commits') changed files on Bitbucket Cloud: the paginated `diffstat`
 * (paths, status, line counts) joined with the raw `diff` text split per file (hunks only, as
 * `PullRequestFile.patch` expects). Bitbucket's diff is `git diff` output (its own order of
 * commits in a spec: the changes first, then what they are compared with).
 */
import type { FileStatus, PullRequestFile } from '../types.js';
import { splitUnifiedDiff } from '../../diff/unified.js';

/** One `diffstat` record (the fields read here). */
export interface DiffStat {
  readonly status?: string;
  readonly lines_added?: number;
  readonly lines_removed?: number;
  readonly old?: { readonly path?: string } | null;
  readonly new?: { readonly path?: string } | null;
}

/** Bitbucket's diffstat status as a `FileStatus`. */
function statusOf(status: string | undefined): FileStatus {
  if (status === 'added' || status === 'removed' || status === 'renamed') return status;
  return 'modified';
}

/** The changed files of `stats` with their hunks from the unified `diff` (in diffstat order). */
export function toPullRequestFiles(stats: readonly DiffStat[], diff: string): PullRequestFile[] {
  const patches = splitUnifiedDiff(diff);
  const out: PullRequestFile[] = [];
  for (const stat of stats) {
    const path = stat.new?.path ?? stat.old?.path;
    if (!path) continue;
    const file: PullRequestFile = {
      path,
      status: statusOf(stat.status),
      additions: stat.lines_added ?? 0,
      deletions: stat.lines_removed ?? 0,
    };
    const previous = stat.old?.path;
    if (previous && previous !== path) file.previousPath = previous;
    const patch = patches.get(path);
    if (patch !== undefined) file.patch = patch;
    out.push(file);
  }
  return out;
}
