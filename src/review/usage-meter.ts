/**
 * Token usage and cost of one review's agent runs, as they happen (CONTRACT §15): each run's
 * cumulative usage events become per-call deltas, priced per call. `review.max_cost_usd` is a hard
 * cap: before a model call is sent, `admit` prices it at its worst (every prompt token at the input
 * or cache-write rate, whichever is higher, plus `maxOutputTokens` at the output rate) and refuses
 * it when what was spent, what calls in flight may still cost and this call together would pass the
 * cap. A refusal marks the review capped (no new call, no new part); a spend that passes the cap
 * anyway (a runner that cannot be asked before each call) fires `onCap`, which aborts the runs.
 * A call aborted in flight is counted at its estimate (its real usage never arrives).
 */
import { costOfCall, usageByKind, type ModelRates, type UsageByKind } from '../agent/pricing.js';
import type { AgentRunResult, ModelCallEstimate } from '../agent/types.js';
import { estimateTokens } from './parts.js';
import type { TokenUsage } from './types.js';

/** Options of `createUsageMeter`. */
export interface UsageMeterOptions {
  /**
   * Prices of the model (`agent.pricing` or the catalogue); `null` = unknown: then the cost is what
   * the runs report themselves (the Claude Code runner), or `null` when one does not.
   */
  rates: ModelRates | null;
  /** `review.max_cost_usd`; unset = no cap. */
  maxCostUsd?: number | undefined;
  /** Called once, when the spend passed the cap (the review then aborts its runs). */
  onCap?: () => void;
}

/** The meter of one review. */
export interface UsageMeter {
  /**
   * Asks to send one model call of run `runId`: true = send it (its worst-case cost is reserved
   * until its usage arrives); false = do not send it (the review is capped from then on).
   * Always true without a cap or without a price (see `capUnenforceable`).
   */
  admit(runId: number, call: ModelCallEstimate): boolean;
  /**
   * A run's cumulative usage so far (the runner's `usage` events). `aggregate`: a total over many
   * calls (Claude Code): priced at base rates, no context tiers, and replaced by the runner's
   * reported cost when it finishes.
   */
  update(runId: number, cumulative: TokenUsage, aggregate?: boolean): void;
  /** A run finished: its result's usage (and cost, when the runner reports one) replace the estimate. */
  finish(runId: number, result: AgentRunResult): void;
  /**
   * A run ended without a result (error or abort): a call still in flight is counted at its
   * reserved estimate when `aborted` (the provider may bill it), else released.
   */
  abandon(runId: number, aborted: boolean): void;
  /** Tokens of every run by kind. */
  tokens(): UsageByKind;
  /** Totals as `TokenUsage` (input includes cache reads and writes). */
  usage(): TokenUsage;
  /** USD, or null when the price is unknown. */
  costUsd(): number | null;
  /** True once the cap stopped a call (or the spend passed it). */
  readonly capped: boolean;
  /** Warnings for the result: the cap is set but cannot be enforced (unknown price). */
  readonly warnings: string[];
}

interface RunState {
  usage: UsageByKind;
  cost: number;
  /** Worst-case USD of this run's call in flight (admitted, usage not yet reported). */
  reserved: number;
  /** Cost the runner reported itself (Claude Code), if any. */
  reported?: number;
  /** Usage came as one total over many calls: the reported cost is preferred. */
  aggregate?: boolean;
}

const zero = (): UsageByKind => ({ input: 0, cacheWrite: 0, cacheRead: 0, output: 0 });

function minus(a: UsageByKind, b: UsageByKind): UsageByKind {
  return {
    input: Math.max(0, a.input - b.input),
    cacheWrite: Math.max(0, a.cacheWrite - b.cacheWrite),
    cacheRead: Math.max(0, a.cacheRead - b.cacheRead),
    output: Math.max(0, a.output - b.output),
  };
}

/** Creates the meter of one review. */
export function createUsageMeter(options: UsageMeterOptions): UsageMeter {
  const runs = new Map<number, RunState>();
  let capped = false;
  const stateOf = (runId: number): RunState => {
    let state = runs.get(runId);
    if (!state) {
      state = { usage: zero(), cost: 0, reserved: 0 };
      runs.set(runId, state);
    }
    return state;
  };
  /** A run's cost: its reported cost for aggregate usage, else priced per call, else reported. */
  const costOf = (run: RunState): number | undefined =>
    run.aggregate && run.reported !== undefined ? run.reported : options.rates ? run.cost : run.reported;
  const spent = (): number => {
    let total = 0;
    for (const run of runs.values()) total += costOf(run) ?? 0;
    return total;
  };
  const reserved = (): number => {
    let total = 0;
    for (const run of runs.values()) total += run.reserved;
    return total;
  };
  // Passed the cap on actual spend (a call larger than its estimate, or a runner not asked per call).
  let overspent = false;
  // One call's tokens priced per call (tiers by its input); a total over many calls at base rates.
  const price = (usage: UsageByKind, run: RunState): number =>
    costOfCall(usage, run.aggregate ? baseRates(options.rates!) : options.rates!);
  const check = (): void => {
    const cap = options.maxCostUsd;
    if (cap === undefined || overspent || spent() <= cap) return;
    capped = true;
    overspent = true;
    options.onCap?.();
  };

  return {
    admit(runId, call) {
      const cap = options.maxCostUsd;
      if (cap === undefined) return true;
      if (!options.rates) return !capped;
      const state = stateOf(runId);
      // A run has one call in flight at most: while its admitted call has reported no usage, a new
      // ask is that same call, priced again more precisely (the runner's ask after the part's).
      if (capped && state.reserved === 0) return false;
      state.reserved = 0;
      const estimate = worstCaseCost(call, options.rates);
      if (spent() + reserved() + estimate > cap) {
        capped = true;
        return false;
      }
      state.reserved = estimate;
      return true;
    },
    update(runId, cumulative, aggregate = false) {
      const state = stateOf(runId);
      const next = usageByKind(cumulative);
      const call = minus(next, state.usage);
      state.usage = next;
      state.reserved = 0;
      if (aggregate) state.aggregate = true;
      if (options.rates) state.cost += price(call, state);
      check();
    },
    finish(runId, result) {
      const state = stateOf(runId);
      const final = usageByKind(result.usage);
      const rest = minus(final, state.usage);
      if (result.usageAggregate) state.aggregate = true;
      if (options.rates && rest.input + rest.cacheWrite + rest.cacheRead + rest.output > 0) {
        state.cost += price(rest, state);
      }
      state.usage = final;
      state.reserved = 0;
      if (result.costUsd !== undefined) state.reported = result.costUsd;
      check();
    },
    abandon(runId, aborted) {
      const state = runs.get(runId);
      if (!state) return;
      if (aborted) state.cost += state.reserved;
      state.reserved = 0;
    },
    tokens() {
      const total = zero();
      for (const run of runs.values()) {
        total.input += run.usage.input;
        total.cacheWrite += run.usage.cacheWrite;
        total.cacheRead += run.usage.cacheRead;
        total.output += run.usage.output;
      }
      return total;
    },
    usage() {
      const t = this.tokens();
      return {
        inputTokens: t.input + t.cacheWrite + t.cacheRead,
        outputTokens: t.output,
        ...(t.cacheRead > 0 ? { cacheReadTokens: t.cacheRead } : {}),
        ...(t.cacheWrite > 0 ? { cacheWriteTokens: t.cacheWrite } : {}),
      };
    },
    costUsd() {
      if (runs.size === 0) return options.rates ? 0 : null;
      let total = 0;
      for (const run of runs.values()) {
        const cost = costOf(run);
        if (cost === undefined) return null;
        total += cost;
      }
      return total;
    },
    get capped() {
      return capped;
    },
    warnings: [capUnenforceable(options.maxCostUsd, options.rates)].filter((w) => w !== undefined),
  };
}

/**
 * The most one model call can cost: every prompt token at the input or cache-write rate (whichever
 * is higher: a call may write its whole prompt to the cache) plus `maxOutputTokens` at the output
 * rate, tiers by the prompt's size.
 */
export function worstCaseCost(call: ModelCallEstimate, rates: ModelRates): number {
  const prompt = estimateTokens(call.promptChars);
  const asInput = costOfCall({ ...zero(), input: prompt, output: call.maxOutputTokens }, rates);
  const asWrite = costOfCall({ ...zero(), cacheWrite: prompt, output: call.maxOutputTokens }, rates);
  return Math.max(asInput, asWrite);
}

/**
 * The warning of a review whose cap cannot be enforced: `review.max_cost_usd` is set but the model
 * has no known price (neither `agent.pricing` nor the catalogue), so no call can be priced before
 * it is sent. `undefined` when the cap is enforceable or unset.
 */
export function capUnenforceable(
  maxCostUsd: number | undefined,
  rates: ModelRates | null,
): string | undefined {
  if (maxCostUsd === undefined || rates !== null) return undefined;
  return `review.max_cost_usd (${maxCostUsd}) is set but the model's price is unknown: the cap cannot be enforced; set agent.pricing`;
}

/** `rates` without context tiers: for usage summed over many calls, whose sizes are unknown. */
function baseRates(rates: ModelRates): ModelRates {
  const base = (rate: ModelRates['input']) => ({ base: rate.base, tiers: [] });
  return {
    input: base(rates.input),
    cacheWrite: base(rates.cacheWrite),
    cacheRead: base(rates.cacheRead),
    output: base(rates.output),
  };
}
