/**
 * Changed files on Bitbucket Data Center: the paged `changes` (paths, type) joined with each file's
 * hunks, from the pull request's raw `.diff` (`git diff` text) or from a `RestDiff` (JSON of
 * `compare/diff`: hunks of segments `ADDED`/`REMOVED`/`CONTEXT`, numbered from
 * `sourceLine`/`destinationLine`) written back as unified-diff hunks, the form
 * `PullRequestFile.patch` expects. Additions and deletions are counted from the hunks.
 */
import { splitUnifiedDiff } from '../../diff/unified.js';
import type { FileStatus, PullRequestFile } from '../types.js';
import { pathText, type Change, type Diff } from './schemas.js';
import type { z } from 'zod';

type ChangeValue = z.output<typeof Change>;
type DiffValue = z.output<typeof Diff>;

/** Data Center's change type as a `FileStatus`. */
function statusOf(type: string | undefined): FileStatus {
  if (type === 'ADD') return 'added';
  if (type === 'DELETE') return 'removed';
  if (type === 'MOVE') return 'renamed';
  return 'modified';
}

const PREFIX: Record<string, string> = { ADDED: '+', REMOVED: '-', CONTEXT: ' ' };

/** A file's hunks with its added and removed line counts. */
interface Patch {
  patch: string;
  add: number;
  del: number;
}

/** Per path: the hunks of a unified `git diff` text, counted. */
export function patchesOfText(text: string): Map<string, Patch> {
  const out = new Map<string, Patch>();
  for (const [path, patch] of splitUnifiedDiff(text)) {
    const lines = patch.split('\n');
    out.set(path, {
      patch,
      add: lines.filter((l) => l.startsWith('+')).length,
      del: lines.filter((l) => l.startsWith('-')).length,
    });
  }
  return out;
}

/** Per path: the unified hunks of one file of `diff`, with its added and removed line counts. */
export function patchesOf(diff: DiffValue): Map<string, Patch> {
  const out = new Map<string, Patch>();
  for (const file of diff.diffs) {
    const path = pathText(file.destination) ?? pathText(file.source);
    if (!path) continue;
    const lines: string[] = [];
    let add = 0;
    let del = 0;
    for (const hunk of file.hunks) {
      lines.push(
        `@@ -${hunk.sourceLine},${hunk.sourceSpan} +${hunk.destinationLine},${hunk.destinationSpan} @@`,
      );
      for (const segment of hunk.segments) {
        const prefix = PREFIX[segment.type] ?? ' ';
        for (const line of segment.lines) {
          if (prefix === '+') add++;
          if (prefix === '-') del++;
          lines.push(`${prefix}${line.line}`);
        }
      }
    }
    out.set(path, { patch: lines.join('\n'), add, del });
  }
  return out;
}

/** The changed files of `changes` with their hunks from `patches` (in `changes` order). */
export function toPullRequestFiles(
  changes: readonly ChangeValue[],
  patches: ReadonlyMap<string, Patch>,
): PullRequestFile[] {
  const out: PullRequestFile[] = [];
  for (const change of changes) {
    const path = pathText(change.path);
    if (!path) continue;
    const found = patches.get(path);
    const file: PullRequestFile = {
      path,
      status: statusOf(change.type),
      additions: found?.add ?? 0,
      deletions: found?.del ?? 0,
    };
    const previous = pathText(change.srcPath);
    if (previous && previous !== path) file.previousPath = previous;
    if (found && found.patch !== '') file.patch = found.patch;
    out.push(file);
  }
  return out;
}
