/**
 * Prices reviewbot carries itself for a provider's DEFAULT model that the `@pydantic/genai-prices`
 * catalogue does not list yet (CONTRACT §15: a default install must show a cost and let
 * `review.max_cost_usd` act). Each entry names the provider's own price page and the day it was
 * read; the catalogue wins as soon as it lists the model (`resolveModelRates`), so an entry only
 * bridges the time until the catalogue catches up, and can then be removed.
 */

/** One reviewed price: USD per million tokens, as the provider publishes it (`agent.pricing`'s shape). */
export interface ReviewedPrice {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_write_per_mtok?: number;
  cache_read_per_mtok?: number;
  /** Our provider id (`PROVIDER_IDS`); the Claude Code runner is priced as `anthropic`. */
  provider: string;
  /** The model id exactly as sent to the API. */
  model: string;
  /** The provider's page the prices were read from. */
  source: string;
  /** The day they were read there, `YYYY-MM-DD`. */
  checked: string;
}

/**
 * The table. `claude-sonnet-5-5`: the catalogue prices only `claude-sonnet-5` (a prefix rule, which
 * must not price another model); Anthropic's model page lists $2 input, $10 output, $2.50 5-minute
 * cache write (the kind reviewbot's breakpoints write), $0.20 cache read, no long-context premium.
 */
export const REVIEWED_PRICES: readonly ReviewedPrice[] = [
  {
    provider: 'anthropic',
    model: 'claude-sonnet-5-5',
    input_per_mtok: 2,
    output_per_mtok: 10,
    cache_write_per_mtok: 2.5,
    cache_read_per_mtok: 0.2,
    source: 'https://platform.claude.com/docs/en/models/sonnet-5-5/overview',
    checked: '2026-11-26',
  },
];

/** The reviewed price of `model` of `provider` (exactly that id), or `undefined` when the table has none. */
export function reviewedPrice(
  provider: string,
  model: string,
  table: readonly ReviewedPrice[] = REVIEWED_PRICES,
): ReviewedPrice | undefined {
  return table.find((p) => p.provider === provider && p.model === model);
}
