/**
 * Validation of a diff discussion's `position`, rejecting what GitLab rejects with HTTP 400
 * (GitLab docs `discussions.md`, "Create a new thread in the merge request diff"):
 * - `base_sha`, `start_sha`, `head_sha`, `position_type` are required; the three SHAs must be those
 *   of one of the merge request's diff versions;
 * - `old_path`/`new_path` must name a file of that version's diff;
 * - the line must be on the diff the way GitLab identifies it: an added line by `new_line` only, a
 *   removed line by `old_line` only, an unchanged line by both — anything else leaves GitLab
 *   without a line code: `400 Bad request - Note {:line_code=>["can't be blank", ...]}`;
 * - a `line_range` needs `start`/`end` with a `line_code` `<sha1(new_path)>_<old>_<new>` naming a
 *   line of the file (GitLab's diff-parser numbering) and a `type` (`new` for added lines, else
 *   `old`); `end` is the position's line and `start` does not come after it.
 */
import { createHash } from 'node:crypto';
import type { DiffFileRecord, DiffLineRecord, MergeRequestRecord, VersionRecord } from './state.js';

/** A valid position (normalized to GitLab's stored shape) or GitLab's 400 answer. */
export type PositionCheck =
  | { ok: true; position: Record<string, unknown>; version: VersionRecord }
  | { ok: false; body: Record<string, unknown> };

const LINE_CODE_BLANK = `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`;

function reject(reason: string, message = LINE_CODE_BLANK): PositionCheck {
  // `fake_reason` is the fake's own addition, to make failing tests readable.
  return { ok: false, body: { message, fake_reason: reason } };
}

function missing(name: string): PositionCheck {
  return { ok: false, body: { error: `position[${name}] is missing` } };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An integer param (JSON number or form string); `undefined` when absent or blank. */
function int(value: unknown): number | undefined | 'invalid' {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) ? n : 'invalid';
}

function matches(line: DiffLineRecord, oldLine: number | undefined, newLine: number | undefined): boolean {
  if (line.kind === 'add') return oldLine === undefined && newLine === line.newPos;
  if (line.kind === 'del') return newLine === undefined && oldLine === line.oldPos;
  return oldLine === line.oldPos && newLine === line.newPos;
}

function lineNumbers(line: DiffLineRecord): { old_line: number | null; new_line: number | null } {
  return {
    old_line: line.kind === 'add' ? null : line.oldPos,
    new_line: line.kind === 'del' ? null : line.newPos,
  };
}

type RangeEnd = { index: number; json: Record<string, unknown> } | { error: string };

function rangeEnd(file: DiffFileRecord, raw: unknown, which: string): RangeEnd {
  if (raw === null || typeof raw !== 'object') return { error: `line_range.${which} is missing` };
  const end = raw as Record<string, unknown>;
  const code = str(end.line_code);
  if (!code) return { error: `line_range.${which}.line_code is missing` };
  const match = /^([0-9a-f]{40})_(\d+)_(\d+)$/.exec(code);
  if (!match) return { error: `line_range.${which}.line_code "${code}" is not <sha1>_<old>_<new>` };
  const fileSha = createHash('sha1').update(file.new_path, 'utf8').digest('hex');
  if (match[1] !== fileSha) return { error: `line_range.${which}.line_code is not for ${file.new_path}` };
  const oldPos = Number(match[2]);
  const newPos = Number(match[3]);
  const index = file.lines.findIndex((l) => l.oldPos === oldPos && l.newPos === newPos);
  const line = file.lines[index];
  if (!line) return { error: `line_range.${which}.line_code ${oldPos}_${newPos} is not a line of the diff` };
  const type = str(end.type);
  const expected = line.kind === 'add' ? 'new' : 'old';
  if (type !== expected)
    return { error: `line_range.${which}.type is ${type ?? 'missing'}, expected ${expected}` };
  return { index, json: { line_code: code, type, ...lineNumbers(line) } };
}

/** Checks `raw` (the request's `position`) against the merge request's diff versions. */
export function checkPosition(mr: MergeRequestRecord, raw: unknown): PositionCheck {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, body: { error: 'position is invalid' } };
  }
  const p = raw as Record<string, unknown>;
  for (const name of ['base_sha', 'start_sha', 'head_sha', 'position_type'])
    if (!str(p[name])) return missing(name);
  if (p.position_type !== 'text')
    return reject(`the fake supports position_type text only, got ${String(p.position_type)}`);
  const version = mr.versions.find(
    (v) => v.baseSha === p.base_sha && v.startSha === p.start_sha && v.headSha === p.head_sha,
  );
  if (!version) return reject('base_sha/start_sha/head_sha match no diff version of the merge request');
  const newPath = str(p.new_path);
  const oldPath = str(p.old_path);
  if (!newPath || !oldPath) return reject('old_path and new_path are required for a text position');
  const file = version.files.find((f) => f.new_path === newPath && f.old_path === oldPath);
  if (!file) return reject(`no file ${oldPath} → ${newPath} in the diff`);
  const oldLine = int(p.old_line);
  const newLine = int(p.new_line);
  if (oldLine === 'invalid' || newLine === 'invalid')
    return { ok: false, body: { error: 'position[old_line], position[new_line] are invalid' } };
  const index = file.lines.findIndex((l) => matches(l, oldLine, newLine));
  const line = file.lines[index];
  if (!line) {
    return reject(
      `old_line ${oldLine ?? 'nil'} / new_line ${newLine ?? 'nil'} identify no line of ${newPath}'s diff`,
    );
  }
  let lineRange: Record<string, unknown> | null = null;
  if (p.line_range !== undefined && p.line_range !== null && p.line_range !== '') {
    const range = p.line_range as Record<string, unknown>;
    const start = rangeEnd(file, range.start, 'start');
    if ('error' in start) return reject(start.error);
    const end = rangeEnd(file, range.end, 'end');
    if ('error' in end) return reject(end.error);
    if (end.index !== index) return reject("line_range.end is not the position's line");
    if (start.index > end.index) return reject('line_range.start comes after line_range.end');
    lineRange = { start: start.json, end: end.json };
  }
  return {
    ok: true,
    version,
    position: {
      base_sha: version.baseSha,
      start_sha: version.startSha,
      head_sha: version.headSha,
      old_path: oldPath,
      new_path: newPath,
      position_type: 'text',
      ...lineNumbers(line),
      line_range: lineRange,
    },
  };
}
