/**
 * The `submit_review` tool: the model hands in its review as tool arguments in the shape of
 * CONTRACT §7 "Agent review output". The schema shows the model the exact shape but accepts any
 * numbers and strings in the comments, so one bad finding does not fail the whole call: the
 * arguments are sorted by `sortSubmittedReview` (invalid comments are folded into the review body
 * with their reason) and recorded; validation against the diff happens later in the review pipeline.
 */
import { tool } from 'ai';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { SUBMITTED_MESSAGE, sortSubmittedReview, type LooseSubmitReviewArgs } from './submitted-review.js';

export { SUBMITTED_MESSAGE, type SubmitReviewInput, type SubmittedComment } from './submitted-review.js';

/** A line number as the model may write it: a number, or a numeric string. */
const lineNumber = z.union([z.number(), z.string()]);

/**
 * The arguments' zod shape (a raw shape, as MCP tools take it); shared by both agent runners.
 * Lenient on purpose (see the module comment): a comment with `line` 0, a fractional or textual
 * line, an empty `path`, a `start_line` after `line` or an unknown `side` is accepted here and
 * folded into the review body with its reason by `sortSubmittedReview`.
 */
export const SUBMIT_REVIEW_SHAPE = {
  summary: z.string().describe('Overall assessment of the change, in Markdown'),
  comments: z
    .array(
      z.object({
        path: z.string().describe('File path relative to the repository root, as in the diff'),
        line: lineNumber.describe('Line the comment refers to (last line of a range); a whole number from 1'),
        side: z
          .string()
          .nullish()
          .describe('"RIGHT" = new version of the file (default), "LEFT" = old version'),
        start_line: lineNumber.nullish().describe('First line of a multi-line range; a whole number from 1'),
        body: z.string().nullish().describe('The comment, in Markdown'),
        suggestion: z
          .string()
          .nullish()
          .describe('Replacement text for the lines start_line..line (RIGHT side only)'),
        severity: z
          .string()
          .nullish()
          .describe(
            '"P0" must not merge (breaks the build, loses or corrupts data, security hole, crash on a common path), ' +
              '"P1" a bug users will hit, "P2" a real but minor problem, "P3" a nit or suggestion',
          ),
        confidence: z
          .union([z.number(), z.string()])
          .nullish()
          .describe('How sure you are that this is a real problem, from 0 to 1'),
      }),
    )
    .nullish()
    .describe('Inline comments on lines of the diff; may be empty'),
};

const submitReviewInput = z.object(SUBMIT_REVIEW_SHAPE);

/**
 * Builds `submit_review`: sorts the arguments (`sortSubmittedReview`), records them through
 * `ctx.onSubmit` and answers `SUBMITTED_MESSAGE`.
 */
export function createSubmitReviewTool(ctx: ToolContext) {
  return tool({
    description:
      'Submits your review: a summary and inline comments on changed lines. Call it exactly once, ' +
      'when your review is complete.',
    inputSchema: submitReviewInput,
    execute: async (input: LooseSubmitReviewArgs) => {
      ctx.onSubmit(sortSubmittedReview(input).review);
      return SUBMITTED_MESSAGE;
    },
  });
}
