/**
 * What `submit_review` does with the model's arguments, in both agent runners (the API runner's
 * tool and Claude Code's MCP tool): a bad finding never costs the review. The tool's schema is
 * lenient, so one comment with `line: 0`, a fractional line, an empty `path` or a `start_line`
 * after its `line` no longer makes the whole call fail (losing every valid comment of it). Each such
 * comment is kept, its body saying why it could not be placed inline, and its `line` set to 0 so
 * the review filter folds it into the review body ("Additional notes (not in diff)") like a line
 * outside the diff; valid comments stay inline. Also the one place that knows the tool's answers,
 * so harness text such as `Review submitted.` is never posted as a review. No `ai` import: the
 * review pipeline may load this module.
 */

/** Answer the API runner's model gets after a successful `submit_review`. */
export const SUBMITTED_MESSAGE = 'Review submitted.';

/** Answer Claude Code's model gets after a successful call. */
export const SUBMITTED_ANSWER = 'Review submitted. Your review is complete: end your turn now.';

/** One inline comment of `submit_review` after sorting (CONTRACT §7, snake_case as the model writes). */
export interface SubmittedComment {
  path: string;
  line: number;
  side?: 'RIGHT' | 'LEFT';
  start_line?: number;
  body: string;
  suggestion?: string;
  /** §21 severity as the model wrote it (read leniently by the review pipeline). */
  severity?: string;
  /** §21 confidence as the model wrote it (read leniently by the review pipeline). */
  confidence?: number | string;
}

/** Arguments of `submit_review` after sorting: what the runners hand to the review pipeline. */
export interface SubmitReviewInput {
  summary: string;
  comments: SubmittedComment[];
}

/** The arguments as the lenient schema lets them through (every field may be off). */
export interface LooseSubmitReviewArgs {
  summary?: string | null | undefined;
  comments?: LooseComment[] | null | undefined;
}

/** One comment as the lenient schema lets it through. */
export interface LooseComment {
  path?: string | null | undefined;
  line?: number | string | null | undefined;
  side?: string | null | undefined;
  start_line?: number | string | null | undefined;
  body?: string | null | undefined;
  suggestion?: string | null | undefined;
  severity?: string | null | undefined;
  confidence?: number | string | null | undefined;
}

/** A comment that could not be placed inline: its index in `comments` and why. */
export interface FoldedComment {
  index: number;
  reason: string;
}

/** Result of {@link sortSubmittedReview}. */
export interface SortedReview {
  review: SubmitReviewInput;
  folded: FoldedComment[];
}

function toNumber(value: number | string | null | undefined): number | undefined | 'text' {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return value;
  return /^\s*-?\d+(?:\.\d+)?\s*$/.test(value) ? Number(value) : 'text';
}

function isLine(n: number | undefined | 'text'): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1;
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Why `comment` cannot be placed inline, or undefined when it can be tried against the diff. */
function problemOf(
  comment: LooseComment,
  line: number | undefined | 'text',
  start: number | undefined | 'text',
): string | undefined {
  if (typeof comment.path !== 'string' || comment.path.trim() === '')
    return 'it names no file (`path` is empty)';
  if (line === undefined) return 'it has no `line`';
  if (!isLine(line)) return `\`line\` ${shown(comment.line)} is not a line number (a whole number from 1)`;
  if (start !== undefined && !isLine(start)) {
    return `\`start_line\` ${shown(comment.start_line)} is not a line number (a whole number from 1)`;
  }
  if (typeof start === 'number' && start > line) return `\`start_line\` ${start} is after \`line\` ${line}`;
  const side = comment.side?.trim().toUpperCase();
  if (side && side !== 'RIGHT' && side !== 'LEFT')
    return `\`side\` ${shown(comment.side)} is neither RIGHT nor LEFT`;
  return undefined;
}

/**
 * Sorts the model's `submit_review` arguments: every comment comes back, valid ones as given
 * (numeric strings as numbers, `side` upper-cased, `null`s dropped), invalid ones with
 * `line: 0` and the reason appended to the body (`_Not placed inline: …_`), so the review filter
 * folds them into the review body. A missing summary is `''`. Never throws.
 */
export function sortSubmittedReview(args: LooseSubmitReviewArgs): SortedReview {
  const comments: SubmittedComment[] = [];
  const folded: FoldedComment[] = [];
  for (const [index, comment] of (args.comments ?? []).entries()) {
    const line = toNumber(comment.line);
    const start = toNumber(comment.start_line);
    const problem = problemOf(comment, line, start);
    const body = comment.body ?? '';
    const side = comment.side?.trim().toUpperCase();
    // Keys in the contract's order (path, line, side, start_line, body, suggestion).
    const out = { path: comment.path?.trim() ?? '', line: 0 } as SubmittedComment;
    if (problem === undefined) out.line = line as number;
    if (side === 'RIGHT' || side === 'LEFT') out.side = side;
    if (problem === undefined && typeof start === 'number') out.start_line = start;
    out.body = body;
    if (problem !== undefined) {
      folded.push({ index, reason: problem });
      out.body = `${body.trim()}${body.trim() === '' ? '' : '\n\n'}_Not placed inline: ${problem}._`;
    }
    if (comment.suggestion !== null && comment.suggestion !== undefined) out.suggestion = comment.suggestion;
    if (comment.severity !== null && comment.severity !== undefined) out.severity = comment.severity;
    if (comment.confidence !== null && comment.confidence !== undefined) out.confidence = comment.confidence;
    comments.push(out);
  }
  return { review: { summary: args.summary ?? '', comments }, folded };
}

const HARNESS_LINES = new Set([SUBMITTED_MESSAGE, SUBMITTED_ANSWER]);

/**
 * `text` without harness text: the lines that are one of the tool's own answers
 * (`Review submitted.`, Claude Code's longer answer), as a model may echo them when it ends its
 * turn, are removed; the rest is trimmed. Such text is never posted as a review.
 */
export function withoutHarnessText(text: string): string {
  return text
    .split('\n')
    .filter((line) => !HARNESS_LINES.has(line.trim()))
    .join('\n')
    .trim();
}

/** True when `text` holds nothing but harness text (or nothing at all). */
export function isHarnessText(text: string): boolean {
  return withoutHarnessText(text) === '';
}
