/**
 * Token and cost totals as flat fields, the form in which cluster Job pods add their usage to the
 * store and the server's `/metrics` reads it back (CONTRACT §15: tokens by kind and cost). Field
 * names map one-to-one to the metrics' label values:
 * - `review_tokens:<kind>` (`input`, `cache_write`, `cache_read`, `output`) → `reviewbot_review_tokens_total{kind}`;
 * - `review_cost_usd` → `reviewbot_review_cost_usd_total`; `reviews_unpriced` → `reviewbot_reviews_unpriced_total`;
 * - `agent_tokens:<bot_type>:<direction>` → `reviewbot_agent_tokens_total{bot_type,direction}`;
 * - `findings:<platform>:<severity>:<outcome>` → `reviewbot_findings_total{platform,severity,outcome}`.
 */
import type { TokenUsage } from './agent/token-usage.js';
import type { ReviewReceipt } from './review/types.js';

/** Field → amount (tokens, or USD for `review_cost_usd`). */
export type UsageTotals = Record<string, number>;

/** Adds `from` into `into` (in place) and returns `into`. */
export function addTotals(into: UsageTotals, from: UsageTotals): UsageTotals {
  for (const [field, value] of Object.entries(from)) into[field] = (into[field] ?? 0) + value;
  return into;
}

/** The fields of one review's receipt. */
export function receiptTotals(receipt: ReviewReceipt): UsageTotals {
  const { tokens } = receipt;
  return {
    'review_tokens:input': tokens.input,
    'review_tokens:cache_write': tokens.cacheWrite,
    'review_tokens:cache_read': tokens.cacheRead,
    'review_tokens:output': tokens.output,
    ...(receipt.costUsd === null ? { reviews_unpriced: 1 } : { review_cost_usd: receipt.costUsd }),
  };
}

/** The fields of one agent run's (or job's) tokens. */
export function agentTokenTotals(botType: string, usage: TokenUsage): UsageTotals {
  return {
    [`agent_tokens:${botType}:input`]: usage.inputTokens,
    [`agent_tokens:${botType}:output`]: usage.outputTokens,
  };
}

/** Collects what a job records (`Metrics.reviewReceipt`, `Metrics.agentTokens`, `Metrics.findings`) as totals. */
export interface UsageTally {
  reviewReceipt(receipt: ReviewReceipt): void;
  agentTokens(botType: string, usage: TokenUsage): void;
  findings(platform: string, severity: string, outcome: string, count: number): void;
  /** Everything recorded so far (a copy). */
  totals(): UsageTotals;
}

/** Creates an empty tally. */
export function createUsageTally(): UsageTally {
  const totals: UsageTotals = {};
  return {
    reviewReceipt: (receipt) => void addTotals(totals, receiptTotals(receipt)),
    agentTokens: (botType, usage) => void addTotals(totals, agentTokenTotals(botType, usage)),
    findings: (platform, severity, outcome, count) =>
      void addTotals(totals, { [`findings:${platform}:${severity}:${outcome}`]: count }),
    totals: () => ({ ...totals }),
  };
}
