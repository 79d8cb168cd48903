/**
 * The `submit_review` tool: the model hands in its review as tool arguments in the shape of
 * CONTRACT §7 "Agent review output". The runner records the arguments; validation against the diff
 * happens later in the review pipeline.
 */
import { tool } from 'ai';
import { z } from 'zod';
import type { ToolContext } from './context.js';

/** Arguments of `submit_review` (CONTRACT §7): snake_case as the model writes them. */
export interface SubmitReviewInput {
  summary: string;
  comments: {
    path: string;
    line: number;
    side?: 'RIGHT' | 'LEFT';
    start_line?: number;
    body: string;
    suggestion?: string;
  }[];
}

/** Answer the model gets after a successful `submit_review`. */
export const SUBMITTED_MESSAGE = 'Review submitted.';

/** The arguments' zod shape (a raw shape, as MCP tools take it); shared by both agent runners. */
export const SUBMIT_REVIEW_SHAPE = {
  summary: z.string().describe('Overall assessment of the change, in Markdown'),
  comments: z
    .array(
      z.object({
        path: z.string().describe('File path relative to the repository root, as in the diff'),
        line: z.number().int().min(1).describe('Line the comment refers to (last line of a range)'),
        side: z
          .enum(['RIGHT', 'LEFT'])
          .optional()
          .describe('RIGHT = new version of the file (default), LEFT = old version'),
        start_line: z.number().int().min(1).optional().describe('First line of a multi-line range'),
        body: z.string().describe('The comment, in Markdown'),
        suggestion: z
          .string()
          .optional()
          .describe('Replacement text for the lines start_line..line (RIGHT side only)'),
      }),
    )
    .describe('Inline comments on lines of the diff; may be empty'),
};

const submitReviewInput = z.object(SUBMIT_REVIEW_SHAPE);

/** Builds `submit_review`: records the arguments through `ctx.onSubmit` and answers `SUBMITTED_MESSAGE`. */
export function createSubmitReviewTool(ctx: ToolContext) {
  return tool({
    description:
      'Submits your review: a summary and inline comments on changed lines. Call it exactly once, ' +
      'when your review is complete.',
    inputSchema: submitReviewInput,
    execute: async (input: SubmitReviewInput) => {
      ctx.onSubmit(input);
      return SUBMITTED_MESSAGE;
    },
  });
}
