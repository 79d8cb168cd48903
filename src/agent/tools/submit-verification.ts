/**
 * The `submit_verification` tool of a verification run (CONTRACT §22): the model hands in whether
 * running code proved a review finding, with the command it ran and that command's output. Lenient
 * like `submit_review`: any strings are accepted here; the review's verification stage checks the
 * verdict (an unknown one counts as `inconclusive`) and never trusts the model's output further.
 */
import { tool } from 'ai';
import { z } from 'zod';

/** Answer the model gets after `submit_verification`. */
export const VERIFICATION_SUBMITTED_MESSAGE = 'Verification submitted.';

/** The arguments' zod shape (a raw shape, as MCP tools take it). */
export const SUBMIT_VERIFICATION_SHAPE = {
  verdict: z
    .string()
    .describe(
      '"confirmed" (a probe fails because of the bug and passes once the change is reverted), ' +
        '"refuted" (running code shows the finding is wrong) or "inconclusive"',
    ),
  command: z.string().nullish().describe('The command that demonstrates the verdict (as run with Bash)'),
  output: z.string().nullish().describe("That command's output (the relevant part)"),
  explanation: z.string().nullish().describe('One or two sentences: what the output shows'),
};

const submitVerificationInput = z.object(SUBMIT_VERIFICATION_SHAPE);

/** Arguments of `submit_verification` as received (unvalidated verdict). */
export type SubmitVerificationInput = z.output<typeof submitVerificationInput>;

/**
 * Builds `submit_verification`: records the arguments through `ctx.onSubmitVerification`. `ctx` is the run's
 * `ToolContext`; only that callback is read, so this module need not import `context.ts`, which
 * imports this module's input type.
 */
export function createSubmitVerificationTool(ctx: {
  onSubmitVerification?: (input: SubmitVerificationInput) => void;
}) {
  return tool({
    description:
      'Submits the verdict of your verification, with the command you ran and its output. Call it ' +
      'exactly once, at the end.',
    inputSchema: submitVerificationInput,
    execute: async (input: SubmitVerificationInput) => {
      ctx.onSubmitVerification?.(input);
      return VERIFICATION_SUBMITTED_MESSAGE;
    },
  });
}
