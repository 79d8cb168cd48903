/**
 * The `submit_matches` tool of `reviewbot eval`'s judge (CONTRACT §23): the judge hands in which
 * review findings (`[F<i>]`) match which golden comments (`[G<j>]`) as tool arguments. The schema
 * shows the model the shape but accepts numbers and strings alike, so a sloppy pair does not fail
 * the call; the eval code keeps only valid, one-to-one pairs (it never trusts the model for that).
 */
import { tool } from 'ai';
import { z } from 'zod';

/** Answer the model gets after `submit_matches`. */
export const MATCHES_SUBMITTED_MESSAGE = 'Matches submitted.';

/** An index as the model may write it: `3`, `"3"` or `"F3"`. */
const index = z.union([z.number(), z.string()]);

/** The arguments' zod shape (a raw shape, as MCP tools take it). */
export const SUBMIT_MATCHES_SHAPE = {
  matches: z
    .array(
      z.object({
        finding: index.describe('Index i of the finding [F<i>]'),
        golden: index.describe('Index j of the golden comment [G<j>]'),
      }),
    )
    .describe('One entry per finding that reports the same issue as a golden comment; may be empty'),
};

const submitMatchesInput = z.object(SUBMIT_MATCHES_SHAPE);

/** Arguments of `submit_matches` as received (unvalidated pairs). */
export type SubmitMatchesInput = z.output<typeof submitMatchesInput>;

/**
 * Builds `submit_matches`: records the arguments through `ctx.onSubmitMatches`. `ctx` is the run's
 * `ToolContext`; only that callback is read, so this module need not import `context.ts`, which
 * imports this module's input type.
 */
export function createSubmitMatchesTool(ctx: { onSubmitMatches?: (input: SubmitMatchesInput) => void }) {
  return tool({
    description:
      'Submits which findings match which golden comments. Call it exactly once, with every match.',
    inputSchema: submitMatchesInput,
    execute: async (input: SubmitMatchesInput) => {
      ctx.onSubmitMatches?.(input);
      return MATCHES_SUBMITTED_MESSAGE;
    },
  });
}
