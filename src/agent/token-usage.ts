/** Token accounting shared by the agent runners, pricing and the review's receipt (CONTRACT §15). */

/** Token counts reported by the provider. */
export interface TokenUsage {
  /** All input tokens, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`: read from the provider's prompt cache (§15), when reported. */
  cacheReadTokens?: number;
  /** Of `inputTokens`: written to the provider's prompt cache (§15), when reported. */
  cacheWriteTokens?: number;
}
