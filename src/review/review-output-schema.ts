/**
 * Lenient zod schema of the agent's review output (CONTRACT §7, §21):
 * `{"summary": str, "comments": [{"path", "line", "side"?, "start_line"?, "body", "suggestion"?,
 * "severity"?, "confidence"?}]}`.
 *
 * Lenient where models slip: `side` in any case (default RIGHT), `start_line` or `startLine`,
 * numbers as numeric strings, `line` as a `"12-15"` range, `null` for absent optional values,
 * unknown keys ignored, missing `comments` = `[]`, missing `summary` = `""`; a severity other than
 * P0–P3 (any case) is P2 and a confidence outside 0..1 is null (`toSeverity`, `toConfidence`), so a
 * slip there never costs the finding. Line numbers are not
 * range-checked here: a comment with a missing, zero or fractional line still carries a note, and
 * the filter rejects it into the review body instead of losing it.
 */
import { z } from 'zod';
import { toConfidence, toSeverity } from './severity/severity.js';
import type { AgentReviewOutput, ProposedComment } from './types.js';

const NUMERIC = /^\s*-?\d+(?:\.\d+)?\s*$/;
const RANGE = /^\s*(\d+)\s*(?:-|–|\.\.)\s*(\d+)\s*$/;

function toNumber(value: unknown): unknown {
  return typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Folds aliases and loose forms into the canonical keys before validation. */
function normalizeComment(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  let line = value.line ?? 0;
  let startLine = value.start_line ?? value.startLine ?? undefined;
  if (typeof line === 'string') {
    const range = RANGE.exec(line);
    if (range) {
      startLine ??= Number(range[1]);
      line = Number(range[2]);
    }
  }
  out.line = toNumber(line);
  out.startLine = toNumber(startLine);
  out.path = value.path ?? '';
  out.side =
    typeof value.side === 'string' && value.side.trim() !== '' ? value.side.trim().toUpperCase() : 'RIGHT';
  if (value.suggestion === null || value.suggestion === '') out.suggestion = undefined;
  out.severity = toSeverity(value.severity);
  out.confidence = toConfidence(value.confidence);
  return out;
}

const comment = z.preprocess(
  normalizeComment,
  z.object({
    path: z.string(),
    line: z.number('expected a line number'),
    side: z.enum(['RIGHT', 'LEFT'], 'expected "RIGHT" or "LEFT"'),
    startLine: z.number('expected a line number').optional(),
    body: z.string('expected a string (the comment text)'),
    suggestion: z.string('expected a string (the replacement code)').optional(),
    severity: z.enum(['P0', 'P1', 'P2', 'P3']),
    confidence: z.number().nullable(),
  }),
);

/** The schema; parse with `safeParse` and read `data` through {@link toReviewOutput}. */
export const reviewOutput = z.object({
  summary: z.preprocess((v) => v ?? '', z.string('expected a string')),
  comments: z.preprocess((v) => v ?? [], z.array(comment, 'expected an array of comment objects')),
});

/** Validated data as {@link AgentReviewOutput}, without keys for absent optional values. */
export function toReviewOutput(data: z.infer<typeof reviewOutput>): AgentReviewOutput {
  const comments: ProposedComment[] = [];
  for (const item of data.comments) {
    const proposed: ProposedComment = {
      path: item.path.trim(),
      line: item.line,
      side: item.side,
      body: item.body,
      severity: item.severity,
      confidence: item.confidence,
    };
    if (item.startLine !== undefined) proposed.startLine = item.startLine;
    if (item.suggestion !== undefined) proposed.suggestion = item.suggestion;
    comments.push(proposed);
  }
  return { summary: data.summary, comments };
}

/** One-line description of validation issues, e.g. `comments[2].body: expected a string (…)`. */
export function describeIssues(error: z.ZodError, limit = 5): string {
  const parts: string[] = [];
  for (const issue of error.issues.slice(0, limit)) {
    let where = '';
    for (const key of issue.path) {
      where += typeof key === 'number' ? `[${key}]` : `${where === '' ? '' : '.'}${String(key)}`;
    }
    parts.push(`${where === '' ? '(root)' : where}: ${issue.message}`);
  }
  const more = error.issues.length - parts.length;
  return parts.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
