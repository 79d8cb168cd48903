/**
 * What a review costs (CONTRACT §15): token prices per model from `@pydantic/genai-prices` (a
 * maintained price table), else from the reviewed table of defaults it does not list yet
 * (`reviewed-prices.ts`), overridable by `agent.pricing`; an unknown model has no price (`null`),
 * never a guess. The table is read in a short-lived child process, like the deprecation check
 * (`model-deprecation.ts`), so a long-running server keeps none of its ~20 MB.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { reviewedPrice, type ReviewedPrice } from './reviewed-prices.js';
import type { TokenUsage } from './token-usage.js';

const execFileAsync = promisify(execFile);

/** A price in USD per million tokens, with the catalogue's context tiers (a higher price above `start` input tokens per request). */
export interface TokenRate {
  base: number;
  tiers: Array<{ start: number; price: number }>;
}

/** Prices of one model per token kind. */
export interface ModelRates {
  input: TokenRate;
  cacheWrite: TokenRate;
  cacheRead: TokenRate;
  output: TokenRate;
}

/** Tokens of one model call (or a sum of them) by kind; `input` excludes cache reads and writes. */
export interface UsageByKind {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
}

/** `agent.pricing` (USD per million tokens). */
export interface PricingOverride {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_write_per_mtok?: number | undefined;
  cache_read_per_mtok?: number | undefined;
}

const flat = (base: number): TokenRate => ({ base, tiers: [] });

/** Rates from `agent.pricing`; a missing cache price is the input price (as the table bills them). */
export function ratesFromOverride(override: PricingOverride): ModelRates {
  return {
    input: flat(override.input_per_mtok),
    output: flat(override.output_per_mtok),
    cacheWrite: flat(override.cache_write_per_mtok ?? override.input_per_mtok),
    cacheRead: flat(override.cache_read_per_mtok ?? override.input_per_mtok),
  };
}

/** The kinds of a provider-reported `TokenUsage` (whose `inputTokens` includes cache reads and writes). */
export function usageByKind(usage: TokenUsage): UsageByKind {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input: Math.max(0, usage.inputTokens - cacheRead - cacheWrite),
    cacheWrite,
    cacheRead,
    output: usage.outputTokens,
  };
}

/** The price of `rate` for a request of `requestInput` tokens: its highest tier whose start the input passes. */
function rateAt(rate: TokenRate, requestInput: number): number {
  let price = rate.base;
  let passed = -1;
  for (const tier of rate.tiers) {
    // Strictly above `start`, as the catalogue's own `calcPrice` bills; in any order of the tiers.
    if (requestInput > tier.start && tier.start > passed) {
      price = tier.price;
      passed = tier.start;
    }
  }
  return price;
}

/**
 * USD cost of one model call's tokens. Tiers apply by the call's whole input (uncached + cache
 * write + cache read), as the price table defines them.
 */
export function costOfCall(usage: UsageByKind, rates: ModelRates): number {
  const requestInput = usage.input + usage.cacheWrite + usage.cacheRead;
  return (
    (usage.input * rateAt(rates.input, requestInput) +
      usage.cacheWrite * rateAt(rates.cacheWrite, requestInput) +
      usage.cacheRead * rateAt(rates.cacheRead, requestInput) +
      usage.output * rateAt(rates.output, requestInput)) /
    1_000_000
  );
}

type CatalogueRate = number | { base: number; tiers?: Array<{ start: number; price: number }> } | undefined;

function toRate(value: CatalogueRate, fallback: TokenRate): TokenRate {
  if (typeof value === 'number') return flat(value);
  if (value && typeof value.base === 'number') return { base: value.base, tiers: value.tiers ?? [] };
  return fallback;
}

/** genai-prices' provider id for ours; `openai-compatible` has none (any server may stand behind it). */
function catalogueProvider(provider: string): string | undefined {
  return provider === 'openai-compatible' ? undefined : provider;
}

/**
 * The catalogue's prices for `model` of `provider` (our provider ids; the Claude Code runner is
 * `anthropic`), read in a child process. Resolves `null` when the catalogue does not list the model
 * itself (a prefix rule matching it is not enough), lists no input/output price for it, or cannot
 * be read (package missing in a slim image).
 */
export async function loadCatalogueRates(provider: string, model: string): Promise<ModelRates | null> {
  const providerId = catalogueProvider(provider);
  if (providerId === undefined || model.trim() === '') return null;
  let pkg: string;
  try {
    pkg = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
  } catch {
    return null;
  }
  // Only the model's own entry counts (its id, an `equals` alias or a `regex` variant), never a
  // prefix rule that would bill a newer model at an older one's price (README, "Cost").
  const source = `
    const [pkg, provider, model] = process.argv.slice(1);
    const result = require(pkg).calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { providerId: provider });
    const exact = (l) => typeof l === 'object' && l !== null && (
      typeof l.equals === 'string' ? l.equals === model
      : typeof l.regex === 'string' ? new RegExp(l.regex).test(model)
      : [l.or, l.and].some((list) => Array.isArray(list) && list.some(exact)));
    const own = result !== null && (result.model.id === model || exact(result.model.match));
    process.stdout.write(JSON.stringify(own ? result.model_price : null));
  `;
  try {
    const { stdout } = await execFileAsync(process.execPath, ['-e', source, pkg, providerId, model], {
      env: {},
      timeout: 10_000,
    });
    const prices = JSON.parse(stdout) as Record<string, CatalogueRate> | null;
    if (prices === null || prices.input_mtok === undefined || prices.output_mtok === undefined) return null;
    const input = toRate(prices.input_mtok, flat(0));
    return {
      input,
      output: toRate(prices.output_mtok, flat(0)),
      cacheWrite: toRate(prices.cache_write_mtok, input),
      cacheRead: toRate(prices.cache_read_mtok, input),
    };
  } catch {
    return null;
  }
}

/**
 * The rates a review is billed at: `agent.pricing` when set, else the catalogue's for the model,
 * else the reviewed table's (`REVIEWED_PRICES`: defaults the catalogue does not list yet), else
 * `null` (cost unknown).
 */
export async function resolveModelRates(
  provider: string,
  model: string | undefined,
  override?: PricingOverride,
  table?: readonly ReviewedPrice[],
): Promise<ModelRates | null> {
  if (override) return ratesFromOverride(override);
  if (model === undefined) return null;
  const catalogue = await loadCatalogueRates(provider, model);
  if (catalogue) return catalogue;
  const reviewed = reviewedPrice(provider, model, table);
  return reviewed ? ratesFromOverride(reviewed) : null;
}
