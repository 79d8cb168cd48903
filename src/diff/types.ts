/**
 * The diff model's records, shared by every platform and the review pipeline. This folder sits below
 * `platforms/` and `review/`: it imports from neither.
 */

/** Which side of a diff a line belongs to: RIGHT = the head (new) file, LEFT = the base (old) file. */
export type DiffSide = 'RIGHT' | 'LEFT';

/** Status of a file in a pull request's diff (GitHub's values). */
export type FileStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';

/** One file of a pull request's diff. */
export interface PullRequestFile {
  /** Path in the head revision (for a removed file: its path in the base). */
  path: string;
  /** Path in the base revision when the file was renamed or copied. */
  previousPath?: string;
  status: FileStatus;
  additions: number;
  deletions: number;
  /**
   * Unified-diff hunks of this file (starting at the first `@@` header, no `diff --git`/`---`/`+++`
   * header lines). Absent for binary files and for diffs the platform truncated.
   */
  patch?: string;
}
