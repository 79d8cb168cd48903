/**
 * The limits one review runs under (CONTRACT §15), from the server's configuration: triage's
 * ignore globs, the diff budget per agent run, the number of parts and of parallel runs, the cost
 * cap, and the model's prices (`agent.pricing`, else the maintained table, else unknown).
 */
import { PROVIDERS } from '../agent/providers.js';
import { resolveModelRates, type ModelRates } from '../agent/pricing.js';
import type { RawConfig } from '../config/schema.js';
import { DEFAULT_MAX_DIFF_TOKENS, DEFAULT_MAX_PARALLEL_RUNS, DEFAULT_MAX_PARTS } from '../config/schema.js';
import { capUnenforceable } from './usage-meter.js';

/** What `executeReview` needs to know about budgets and prices. */
export interface ReviewLimits {
  /** `review.ignore` (later merged with the repository's own globs, §14). */
  ignore: string[];
  maxDiffTokens: number;
  maxParts: number;
  maxParallelRuns: number;
  /** `review.max_cost_usd`; undefined = no cap. */
  maxCostUsd?: number | undefined;
  /** Prices of the configured model; null = unknown (`costUsd: null`). */
  rates: ModelRates | null;
}

/** Limits when none are given: the documented defaults, no cap, no price. */
export const DEFAULT_LIMITS: ReviewLimits = {
  ignore: [],
  maxDiffTokens: DEFAULT_MAX_DIFF_TOKENS,
  maxParts: DEFAULT_MAX_PARTS,
  maxParallelRuns: DEFAULT_MAX_PARALLEL_RUNS,
  rates: null,
};

/**
 * Resolved rates per (provider, model, `agent.pricing`), kept for the life of the process: the
 * price table is read by a child process, which a server must not start on every review. Bounded
 * by the configurations a process sees (one, in practice). A failed read is not kept.
 */
const ratesCache = new Map<string, Promise<ModelRates | null>>();

function cachedRates(
  provider: string,
  model: string | undefined,
  pricing: RawConfig['agent']['pricing'],
): Promise<ModelRates | null> {
  const key = JSON.stringify([provider, model ?? null, pricing ?? null]);
  let rates = ratesCache.get(key);
  if (!rates) {
    rates = resolveModelRates(provider, model, pricing);
    ratesCache.set(key, rates);
    rates.catch(() => ratesCache.delete(key));
  }
  return rates;
}

/**
 * The limits of `config`, prices resolved once per process and configuration (a short child
 * process reads the price table unless `agent.pricing` is set). The Claude Code runner
 * (`agent.provider` unset) is priced as Anthropic when `agent.model` names the model; otherwise it
 * reports its own cost per run.
 */
export async function reviewLimitsOf(config: Pick<RawConfig, 'agent' | 'review'>): Promise<ReviewLimits> {
  const provider = config.agent.provider;
  const model = config.agent.model ?? (provider ? PROVIDERS[provider].defaultModel : undefined);
  const rates = await cachedRates(provider ?? 'anthropic', model, config.agent.pricing);
  return {
    ignore: [...config.review.ignore],
    maxDiffTokens: config.review.max_diff_tokens,
    maxParts: config.review.max_parts,
    maxParallelRuns: config.review.max_parallel_runs,
    maxCostUsd: config.review.max_cost_usd,
    rates,
  };
}

/**
 * Start-up warnings about the cost cap: one line when `review.max_cost_usd` is set but the model has
 * no known price (then the cap cannot be enforced). Resolves prices only when a cap is set.
 */
export async function costCapWarnings(config: Pick<RawConfig, 'agent' | 'review'>): Promise<string[]> {
  if (config.review.max_cost_usd === undefined) return [];
  const limits = await reviewLimitsOf(config);
  const warning = capUnenforceable(limits.maxCostUsd, limits.rates);
  return warning === undefined ? [] : [warning];
}
