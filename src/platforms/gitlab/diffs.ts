/**
 * GitLab merge request diffs (`GET /projects/:id/merge_requests/:iid/diffs`) as the platform-neutral
 * `PullRequestFile` (GitHub's per-file shape): GitLab's `diff` field already holds only the file's
 * hunks, so it becomes `patch` as is (minus its final newline, as GitHub's `patch` has none).
 */
import { parsePatch } from '../../diff/diff.js';
import type { FileStatus, PullRequestFile } from '../types.js';
import type { MergeRequestDiff } from './schemas.js';

/** True when a diff entry's `diff` holds hunks (not `""`, not `Binary files ... differ`). */
export function hasHunks(diff: string | null | undefined): boolean {
  return typeof diff === 'string' && diff.startsWith('@@ ');
}

function statusOf(entry: MergeRequestDiff): FileStatus {
  if (entry.new_file) return 'added';
  if (entry.deleted_file) return 'removed';
  if (entry.renamed_file) return 'renamed';
  return 'modified';
}

/**
 * Maps one diff entry:
 * - `path` = `new_path` (GitLab repeats the path in `new_path` for deleted files), `previousPath` =
 *   `old_path` for a rename;
 * - status from `new_file`/`deleted_file`/`renamed_file`, else `modified`;
 * - `patch` = the hunks; none for binary files (`Binary files a/x and b/x differ`) and for diffs
 *   GitLab withheld (`too_large`, or `collapsed` past its size limits, with `diff: ""`);
 * - `additions`/`deletions` counted from the hunks (GitLab's diffs API reports no counts). A
 *   withheld diff is reported with `additions: 1`, so it reads as "too large, read the file"
 *   downstream rather than as a binary file (the shared `PullRequestFile` has no flag for it).
 */
export function toPullRequestFile(entry: MergeRequestDiff): PullRequestFile {
  const file: PullRequestFile = { path: entry.new_path, status: statusOf(entry), additions: 0, deletions: 0 };
  if (entry.renamed_file && entry.old_path !== entry.new_path) file.previousPath = entry.old_path;
  const diff = entry.diff ?? '';
  if (hasHunks(diff)) {
    file.patch = diff.endsWith('\n') ? diff.slice(0, -1) : diff;
    for (const hunk of parsePatch(file.patch)) {
      for (const line of hunk.lines) {
        if (line.kind === 'add') file.additions++;
        else if (line.kind === 'del') file.deletions++;
      }
    }
  } else if ((entry.too_large || entry.collapsed) && !diff.startsWith('Binary files')) {
    file.additions = 1;
  }
  return file;
}
