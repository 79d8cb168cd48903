/**
 * Changed files with their hunks on Azure DevOps, which returns no diff text (CONTRACT §6): the
 * files come from the latest iteration's changes (`GET …/pullRequests/{id}/iterations/{it}/changes`
 * with `$compareTo=0`, i.e. from the common commit to the iteration's source commit), or from
 * `GET …/diffs/commits` between two commits; each file's hunks are made here from its text at both
 * commits (items API, `versionDescriptor` = the commit) with 3 lines of context, as `git diff`.
 * Change types arrive as `VersionControlChangeType` flags (GitInterfaces.ts: add 1, edit 2,
 * rename 8, delete 16; strings such as `"edit, rename"` on the wire).
 */
import { formatPatch, structuredPatch } from 'diff';
import type { GitChange } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import type { FileStatus, PullRequestFile } from '../types.js';
import { FileTooLargeError, type AzureClient } from './client.js';

/**
 * Files whose hunks are computed at most (each costs two reads); the rest are listed without. As
 * many as GitHub's pull request files API lists (3,000), so a large pull request is covered alike.
 */
export const MAX_DIFFED_FILES = 3_000;
/** Files whose two texts are read at once. */
export const FILE_READS_IN_FLIGHT = 6;
/** Longest one file's diff may compute, ms (jsdiff runs on the event loop). */
export const FILE_DIFF_TIMEOUT_MS = 250;

const ADD = 1;
const RENAME = 8;
const DELETE = 16;
/** `GitVersionType.Commit` (GitInterfaces.ts). */
const VERSION_TYPE_COMMIT = 2;

/** The change-type flags of `change` (number or the wire's comma list). */
export function changeFlags(type: unknown): number {
  if (typeof type === 'number') return type;
  if (typeof type !== 'string') return 0;
  const names: Record<string, number> = { add: ADD, edit: 2, rename: RENAME, delete: DELETE };
  return type
    .split(',')
    .map((t) => names[t.trim().toLowerCase()] ?? 0)
    .reduce((a, b) => a | b, 0);
}

/** A changed file as listed by the API, before its hunks are made. */
export interface ListedChange {
  path: string;
  previousPath?: string;
  status: FileStatus;
  changeTrackingId?: number;
}

/** `changes` (iteration changes or commit diffs) as listed files; folders are skipped. */
export function toListedChanges(
  changes: ReadonlyArray<GitChange & { changeTrackingId?: number }>,
): ListedChange[] {
  const out: ListedChange[] = [];
  for (const change of changes) {
    const item = change.item;
    if (
      !item?.path ||
      item.isFolder ||
      (item.gitObjectType !== undefined && Number(item.gitObjectType) === 2)
    )
      continue;
    const flags = changeFlags(change.changeType);
    const path = item.path.replace(/^\/+/, '');
    const status: FileStatus =
      flags & ADD ? 'added' : flags & DELETE ? 'removed' : flags & RENAME ? 'renamed' : 'modified';
    const previous = change.originalPath ?? change.sourceServerItem;
    out.push({
      path,
      status,
      ...(previous && previous.replace(/^\/+/, '') !== path
        ? { previousPath: previous.replace(/^\/+/, '') }
        : {}),
      ...(change.changeTrackingId !== undefined ? { changeTrackingId: change.changeTrackingId } : {}),
    });
  }
  return out;
}

/** The hunks (from the first `@@`) of `before` → `after`; undefined when none or too costly. */
export function hunksBetween(path: string, before: string, after: string): string | undefined {
  const structured = structuredPatch(path, path, before, after, '', '', {
    context: 3,
    timeout: FILE_DIFF_TIMEOUT_MS,
  });
  if (!structured) return undefined;
  const patch = formatPatch(structured);
  const first = patch.indexOf('\n@@');
  if (first < 0) return undefined;
  return patch.slice(first + 1).replace(/\n+$/, '');
}

/** Longest file whose text is read to make hunks, bytes; a longer one gets none (as binary). */
export const MAX_DIFFED_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Text of `path` at `commit` in `project/repo`, or null when absent.
 * @throws FileTooLargeError past `maxBytes`.
 */
export function fileAt(
  client: AzureClient,
  project: string,
  repo: string,
  path: string,
  commit: string,
  maxBytes?: number,
) {
  return client.text(
    (git) =>
      git.getItemContent(repo, `/${path}`, project, undefined, undefined, undefined, undefined, undefined, {
        version: commit,
        versionType: VERSION_TYPE_COMMIT,
      }),
    maxBytes,
  );
}

/**
 * The changed files `listed` between `base` and `head` with their hunks, made from each file's text
 * at both commits, `FILE_READS_IN_FLIGHT` files at a time (at most `MAX_DIFFED_FILES` files get
 * hunks; binary files none).
 */
export async function withHunks(
  client: AzureClient,
  project: string,
  repo: string,
  listed: ListedChange[],
  base: string,
  head: string,
): Promise<PullRequestFile[]> {
  const out: PullRequestFile[] = listed.map((change) => ({
    path: change.path,
    status: change.status,
    additions: 0,
    deletions: 0,
    ...(change.previousPath ? { previousPath: change.previousPath } : {}),
  }));
  let next = 0;
  async function worker(): Promise<void> {
    for (let index = next++; index < Math.min(listed.length, MAX_DIFFED_FILES); index = next++) {
      const change = listed[index] as ListedChange;
      const file = out[index] as PullRequestFile;
      let before: string | null;
      let after: string | null;
      try {
        [before, after] = await Promise.all([
          change.status === 'added'
            ? null
            : fileAt(client, project, repo, change.previousPath ?? change.path, base, MAX_DIFFED_FILE_BYTES),
          change.status === 'removed'
            ? null
            : fileAt(client, project, repo, change.path, head, MAX_DIFFED_FILE_BYTES),
        ]);
      } catch (error) {
        if (error instanceof FileTooLargeError) continue; // listed without a diff, like a binary
        throw error;
      }
      if ((before ?? '').includes('\0') || (after ?? '').includes('\0')) continue;
      const patch = hunksBetween(change.path, before ?? '', after ?? '');
      if (patch === undefined) continue;
      file.patch = patch;
      for (const line of patch.split('\n')) {
        if (line.startsWith('+')) file.additions++;
        else if (line.startsWith('-')) file.deletions++;
      }
    }
  }
  await Promise.all(Array.from({ length: FILE_READS_IN_FLIGHT }, () => worker()));
  return out;
}
