/**
 * Gitea's pull request diff as the platform-neutral `PullRequestFile`: Gitea's file list
 * (`GET .../pulls/{index}/files`, `ChangedFile`) carries no patch, so the hunks come from the pull
 * request's unified diff (`GET .../pulls/{index}.diff`, `git diff` of merge base...head as Gitea
 * runs it), split per file here.
 */
import type { FileStatus, PullRequestFile } from '../types.js';
import type { ChangedFile } from './schemas.js';

/**
 * `FileStatus` of a `ChangedFile.status` (`services/convert` `ToChangedFile`: `added`, `deleted`,
 * `renamed`, `copied`, `unchanged`, and `changed` for a plain modification).
 */
function statusOf(status: string): FileStatus {
  if (status === 'deleted' || status === 'removed') return 'removed';
  if (status === 'added' || status === 'renamed' || status === 'copied' || status === 'unchanged')
    return status;
  return 'modified';
}

/** Maps Gitea's changed files plus the split patches to `PullRequestFile`s (in Gitea's order). */
export function toPullRequestFiles(files: ChangedFile[], patches: Map<string, string>): PullRequestFile[] {
  return files.map((f) => {
    const file: PullRequestFile = {
      path: f.filename,
      status: statusOf(f.status),
      additions: f.additions,
      deletions: f.deletions,
    };
    if (f.previous_filename && f.previous_filename !== f.filename) file.previousPath = f.previous_filename;
    const patch = patches.get(f.filename);
    if (patch !== undefined) file.patch = patch;
    return file;
  });
}
