/**
 * Limits of one model call shared by the runners and the review's cost cap (CONTRACT §15), in a
 * module of its own so review code can read them without loading the AI SDK.
 */

/** Upper bound of tokens the model may generate per call (`max_tokens`; a review fits well within it). */
export const MAX_OUTPUT_TOKENS = 16_384;
