/**
 * Where an inline review comment may go, checked the way GitHub checks it when a review or review
 * comment is created: the path must be a file of the diff with a patch; `line` must be shown on
 * `side` (RIGHT = added or context line, new numbering; LEFT = removed or context line, old
 * numbering); a multi-line range (`start_line`..`line`) must have `start_line` < `line`, stay in
 * one hunk and have every line of it on its side; or the deprecated `position` must point at a diff
 * line. Source: docs.github.com "Create a review for a pull request" / "Create a review comment".
 */
import type { DiffFile } from './diff.js';
import { diffHunkUpTo, findLine, findPosition, parsePatch, type PatchLine, type Side } from './patch.js';

/** A comment location as sent by a client (fields of GitHub's request body). */
export interface CommentDraft {
  path: string;
  line?: number;
  side?: string;
  start_line?: number;
  start_side?: string;
  position?: number;
}

/** A resolved location, ready to store. */
export interface ResolvedLocation {
  path: string;
  line: number;
  side: Side;
  startLine: number | null;
  startSide: Side | null;
  position: number;
  diffHunk: string;
}

/** The resolution, or GitHub's 422 error text. */
export type Resolution = { ok: true; location: ResolvedLocation } | { ok: false; error: string };

function fail(error: string): Resolution {
  return { ok: false, error };
}

function asSide(value: string | undefined, fallback: Side): Side | undefined {
  if (value === undefined) return fallback;
  return value === 'LEFT' || value === 'RIGHT' ? value : undefined;
}

function lineOf(l: PatchLine, side: Side): number {
  return (side === 'RIGHT' ? l.newLine : l.oldLine) ?? 0;
}

/** Resolves `draft` against the pull request's `files`. */
export function resolveCommentLocation(files: DiffFile[], draft: CommentDraft): Resolution {
  const file = files.find((f) => f.filename === draft.path);
  if (!file) return fail('Path could not be resolved');
  if (file.patch === undefined) return fail('Line could not be resolved');
  const parsed = parsePatch(file.patch);

  if (draft.line === undefined) {
    if (draft.position === undefined) return fail('Line could not be resolved');
    const at = findPosition(parsed, draft.position);
    if (!at) return fail('Position could not be resolved');
    const side: Side = at.kind === 'removed' ? 'LEFT' : 'RIGHT';
    const location = { path: file.filename, line: lineOf(at, side), side, startLine: null, startSide: null };
    return { ok: true, location: { ...location, position: at.position, diffHunk: diffHunkUpTo(parsed, at) } };
  }

  const side = asSide(draft.side, 'RIGHT');
  if (!side) return fail('Pull request review thread side is not included in the list');
  const end = findLine(parsed, side, draft.line);
  if (!end) return fail('Line could not be resolved');
  const base = { path: file.filename, line: draft.line, side, position: end.position };
  const diffHunk = diffHunkUpTo(parsed, end);
  if (draft.start_line === undefined) {
    return { ok: true, location: { ...base, startLine: null, startSide: null, diffHunk } };
  }

  const startSide = asSide(draft.start_side, side);
  if (!startSide) return fail('Pull request review thread start side is not included in the list');
  const start = findLine(parsed, startSide, draft.start_line);
  if (!start) return fail('Start line could not be resolved');
  if (startSide === side ? draft.start_line >= draft.line : start.position >= end.position) {
    return fail('Start line must precede the end line');
  }
  if (start.hunk !== end.hunk) return fail('Start line must be part of the same hunk as the line');
  if (startSide === side) {
    for (let n = draft.start_line; n <= draft.line; n += 1) {
      const l = findLine(parsed, side, n);
      if (!l || l.hunk !== end.hunk) return fail('Line could not be resolved');
    }
  }
  return { ok: true, location: { ...base, startLine: draft.start_line, startSide, diffHunk } };
}
