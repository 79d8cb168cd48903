/**
 * Turning what the model delivered — its final message text, or the arguments of its
 * `submit_review` tool call — into a validated {@link AgentReviewOutput} (CONTRACT §7).
 */
import type { AgentReviewOutput } from './types.js';
import { extractReviewJson, unwrapReview } from './extract-json.js';
import { describeIssues, reviewOutput, toReviewOutput } from './review-output-schema.js';

/** Result of {@link parseReviewOutput}: the review, or a message to send back to the model. */
export type ParseOutcome =
  { ok: true; output: AgentReviewOutput; repaired: boolean } | { ok: false; error: string };

/** The expected shape, appended to every error so a re-asked model knows what to send. */
export const EXPECTED_SHAPE =
  'Expected one JSON object: {"summary": string, "comments": [{"path": string, "line": integer, ' +
  '"side": "RIGHT"|"LEFT", "start_line"?: integer, "body": string, "suggestion"?: string, ' +
  '"severity": "P0"|"P1"|"P2"|"P3", "confidence": number from 0 to 1}]}.';

function validate(value: Record<string, unknown>, repaired: boolean): ParseOutcome {
  const result = reviewOutput.safeParse(value);
  if (!result.success) {
    return { ok: false, error: `invalid review output: ${describeIssues(result.error)}. ${EXPECTED_SHAPE}` };
  }
  return { ok: true, output: toReviewOutput(result.data), repaired };
}

/**
 * Parses and validates the model's review.
 *
 * - An object (the `submit_review` arguments) is validated as it is.
 * - A string (the final message) may have prose or ```` ```json ```` fences around the object; the
 *   outermost object with a `summary` or `comments` key is used (the last one when there are
 *   several), a single-key wrapper such as `{"review": {…}}` is unwrapped, and malformed or
 *   truncated JSON is repaired with `jsonrepair` (`repaired: true`).
 * - A top-level array is not a review.
 *
 * Validation is lenient (see `review-output-schema.ts`). Never throws.
 *
 * @param input the final text, or the tool call's arguments (unvalidated).
 * @returns `ok: false` with a one-paragraph `error` that names the problem and the expected shape,
 *   suitable for re-asking the model.
 */
export function parseReviewOutput(input: unknown): ParseOutcome {
  if (typeof input === 'string') {
    const { found, sawArray } = extractReviewJson(input);
    if (found !== undefined) return validate(found.value as Record<string, unknown>, found.repaired);
    const problem = sawArray
      ? 'the output is a JSON array; a top-level array is not valid'
      : input.trim() === ''
        ? 'the output is empty'
        : 'no JSON object with a "summary" or "comments" key was found in the output';
    return { ok: false, error: `${problem}. ${EXPECTED_SHAPE}` };
  }
  if (Array.isArray(input)) {
    return {
      ok: false,
      error: `the review is a JSON array; a top-level array is not valid. ${EXPECTED_SHAPE}`,
    };
  }
  if (typeof input === 'object' && input !== null) {
    const review = unwrapReview(input);
    if (review !== undefined) return validate(review, false);
    return {
      ok: false,
      error: `the review object has neither a "summary" nor a "comments" key. ${EXPECTED_SHAPE}`,
    };
  }
  return {
    ok: false,
    error: `the review must be a JSON object, got ${input === null ? 'null' : typeof input}. ${EXPECTED_SHAPE}`,
  };
}
