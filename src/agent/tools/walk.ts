/**
 * Walks workspace files for Glob and Grep: skips `.git`, never descends a symlinked directory, lists
 * each directory through a descriptor checked to lie inside the workspace, and yields a symlinked
 * file only when its real path stays inside the workspace and outside `.git`.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { hasGitSegment, isInsideRoot } from './confine.js';
import { openConfinedDirectory } from './confined-open.js';

/** Most directory entries one walk visits; beyond it the walk stops and reports truncation. */
export const MAX_WALK_ENTRIES = 200_000;

/** Files found by `walkFiles`, as workspace-relative POSIX paths, unsorted. */
export interface WalkResult {
  files: string[];
  /** True when `MAX_WALK_ENTRIES` was reached before the walk finished. */
  truncated: boolean;
}

/**
 * Lists the files under the workspace-relative directory `startRelative` (`.` = root) of the
 * workspace whose real path is `rootReal`. Stops early when `signal` aborts (throws its reason).
 * With `isVisible` (`ToolContext.isVisible`) it neither lists nor descends what is not visible, so
 * an ignored `node_modules` costs no entries.
 */
export async function walkFiles(
  rootReal: string,
  startRelative: string,
  signal?: AbortSignal,
  maxEntries = MAX_WALK_ENTRIES,
  isVisible?: (relative: string) => boolean,
): Promise<WalkResult> {
  const files: string[] = [];
  const pending = [startRelative];
  let visited = 0;
  while (pending.length > 0) {
    signal?.throwIfAborted();
    const dirRelative = pending.pop() as string;
    // Listed through a pinned descriptor checked to be inside the workspace: a directory swapped
    // for a symlink meanwhile is not listed.
    const dir = await openConfinedDirectory(rootReal, path.join(rootReal, dirRelative));
    if (!dir) continue; // vanished, replaced or refused
    let entries: Dirent[];
    try {
      entries = await readdir(dir.path, { withFileTypes: true });
    } catch {
      continue; // unreadable directory
    } finally {
      await dir.close();
    }
    for (const entry of entries) {
      if (++visited > maxEntries) return { files, truncated: true };
      if (entry.name.toLowerCase() === '.git') continue;
      const relative = dirRelative === '.' ? entry.name : `${dirRelative}/${entry.name}`;
      if (isVisible && !isVisible(relative)) continue;
      if (entry.isDirectory()) pending.push(relative);
      else if (entry.isFile()) files.push(relative);
      else if (entry.isSymbolicLink() && (await isConfinedFileLink(rootReal, relative, isVisible)))
        files.push(relative);
    }
  }
  return { files, truncated: false };
}

/** True when the symlink `relative` resolves to a regular (visible) file inside the workspace, outside `.git`. */
async function isConfinedFileLink(
  rootReal: string,
  relative: string,
  isVisible?: (relative: string) => boolean,
): Promise<boolean> {
  try {
    const real = await realpath(path.join(rootReal, relative));
    if (!isInsideRoot(rootReal, real)) return false;
    const realRelative = path.relative(rootReal, real).split(path.sep).join('/');
    if (hasGitSegment(realRelative) || (isVisible && !isVisible(realRelative))) return false;
    return (await stat(real)).isFile();
  } catch {
    return false;
  }
}
