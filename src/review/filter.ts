/**
 * The filter rules of CONTRACT §7: which proposed comments can be posted inline, which are folded
 * into the review body, and which repeat what the bot already said.
 */
import type { ExistingComment } from '../platforms/types.js';
import type { DiffIndex } from '../diff/diff-index.js';
import type { Finding, ProposedComment } from './types.js';

/** Outcome of {@link filterFindings}; every proposed comment lands in at most one list. */
export interface FilterResult {
  /** On the diff: postable inline. */
  kept: Finding[];
  /** Not postable inline (unknown path, lines off the diff or across hunks, bad line numbers). */
  rejected: Finding[];
  /** Identical to a comment the bot already posted, or to an earlier proposed comment. */
  duplicates: Finding[];
}

/** Options of {@link filterFindings}. */
export interface FilterOptions {
  /**
   * Renders a finding as it would be posted (e.g. `renderInlineBody` with the platform's
   * suggestion syntax); a finding whose rendered body equals an existing bot comment's body is a
   * duplicate too.
   */
  renderBody?: (finding: Finding) => string;
}

/** Body as compared for duplicates: CRLF folded to LF, trimmed. */
function normalizeBody(body: string): string {
  return body.replace(/\r\n/g, '\n').trim();
}

function commentKey(path: string, line: number, body: string): string {
  return `${path}\u0000${line}\u0000${normalizeBody(body)}`;
}

/**
 * The path as the diff knows it. Models sometimes write `./src/a.ts`, `/src/a.ts` or the
 * `a/`/`b/` prefixes of `git diff`; those are mapped to the diff's path when the raw one is unknown.
 */
function resolvePath(path: string, index: DiffIndex): string {
  const trimmed = path.trim();
  if (index.hasFile(trimmed)) return trimmed;
  const candidates = [trimmed.replace(/^(?:\.\/|\/)+/, ''), trimmed.replace(/^[ab]\//, '')];
  for (const candidate of candidates) if (index.hasFile(candidate)) return candidate;
  return trimmed;
}

/** The proposed comment as a Finding: side defaulted, `startLine` dropped when not below `line`. */
function toFinding(comment: ProposedComment, path: string): Finding {
  const side = comment.side === 'LEFT' ? 'LEFT' : 'RIGHT';
  const finding: Finding = {
    path,
    line: comment.line,
    side,
    body: comment.body,
    severity: comment.severity,
    confidence: comment.confidence,
  };
  if (comment.startLine !== undefined && comment.startLine !== comment.line) {
    finding.startLine = comment.startLine;
  }
  // CONTRACT §7: a suggestion on a LEFT-side comment is dropped; the comment itself is kept.
  if (comment.suggestion !== undefined && side === 'RIGHT') finding.suggestion = comment.suggestion;
  return finding;
}

function isValidLine(n: number | undefined): n is number {
  return n !== undefined && Number.isInteger(n) && n >= 1;
}

/** True when the finding's whole range is on its side of the diff, in one hunk. */
function isOnDiff(finding: Finding, index: DiffIndex): boolean {
  if (!isValidLine(finding.line)) return false;
  const start = finding.startLine ?? finding.line;
  if (!isValidLine(start) || start > finding.line) return false;
  return index.isRangeOnDiff(finding.path, finding.side, start, finding.line);
}

/**
 * Applies CONTRACT §7's filter rules to the model's proposed comments.
 *
 * Per comment, in order: `side` defaults to RIGHT; a `startLine` equal to `line` is dropped; a
 * suggestion on LEFT is dropped (the comment stays). A comment whose (path, line, trimmed body) —
 * or (path, line, `renderBody(finding)`) — equals one of `botComments` with a path and line is a
 * duplicate and dropped, as is an exact repeat of an earlier proposed comment. A comment is kept
 * when its path is in the diff and every line `startLine..line` is on its side within one hunk
 * (see {@link DiffIndex.isRangeOnDiff}); otherwise it is rejected, to be listed in the review body:
 * unknown path, lines off the diff or spanning hunks, `startLine > line`, non-integer or < 1
 * lines. Comments with neither body nor suggestion are discarded. Runs in O(n log hunks).
 *
 * @param proposed validated model output (`parseReviewOutput`).
 * @param index the pull request's diff.
 * @param botComments comments the bot already posted on the pull request; only inline ones (with
 *   `path` and `line`) matter.
 */
export function filterFindings(
  proposed: ProposedComment[],
  index: DiffIndex,
  botComments: ExistingComment[],
  options: FilterOptions = {},
): FilterResult {
  const existing = new Set<string>();
  for (const comment of botComments) {
    if (comment.path !== undefined && comment.line !== undefined && comment.line !== null) {
      existing.add(commentKey(comment.path, comment.line, comment.body));
    }
  }
  const result: FilterResult = { kept: [], rejected: [], duplicates: [] };
  const seen = new Set<string>();
  for (const comment of proposed) {
    const finding = toFinding(comment, resolvePath(comment.path, index));
    if (normalizeBody(finding.body).length === 0 && finding.suggestion === undefined) continue;
    const exact = JSON.stringify([
      finding.path,
      finding.line,
      finding.side,
      finding.startLine ?? null,
      normalizeBody(finding.body),
      finding.suggestion ?? null,
    ]);
    const isDuplicate =
      seen.has(exact) ||
      existing.has(commentKey(finding.path, finding.line, finding.body)) ||
      (options.renderBody !== undefined &&
        existing.has(commentKey(finding.path, finding.line, options.renderBody(finding))));
    seen.add(exact);
    if (isDuplicate) result.duplicates.push(finding);
    else if (isOnDiff(finding, index)) result.kept.push(finding);
    else result.rejected.push(finding);
  }
  return result;
}
