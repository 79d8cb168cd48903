/**
 * Token usage and cost of one review's agent runs, as they happen (CONTRACT §15): each run's
 * cumulative usage events become per-call deltas, priced per call; when `review.max_cost_usd` is
 * set and the spend plus the next call's likely cost would pass it, the meter fires `onCap` once
 * (the review aborts its runs, keeps what they found and says so).
 */
import { costOfCall, usageByKind, type ModelRates, type UsageByKind } from '../agent/pricing.js';
import type { AgentRunResult } from '../agent/types.js';
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
  /** Called once, when the cap is reached. */
  onCap?: () => void;
}

/** The meter of one review. */
export interface UsageMeter {
  /** A run's cumulative usage so far (the runner's `usage` events). */
  update(runId: number, cumulative: TokenUsage): void;
  /** A run finished: its result's usage (and cost, when the runner reports one) replace the estimate. */
  finish(runId: number, result: AgentRunResult): void;
  /** Tokens of every run by kind. */
  tokens(): UsageByKind;
  /** Totals as `TokenUsage` (input includes cache reads and writes). */
  usage(): TokenUsage;
  /** USD, or null when the price is unknown. */
  costUsd(): number | null;
  /** True once the cap fired. */
  readonly capped: boolean;
}

interface RunState {
  usage: UsageByKind;
  cost: number;
  /** Cost the runner reported itself (Claude Code), if any. */
  reported?: number;
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
      state = { usage: zero(), cost: 0 };
      runs.set(runId, state);
    }
    return state;
  };
  const spent = (): number => {
    let total = 0;
    for (const run of runs.values()) total += options.rates ? run.cost : (run.reported ?? 0);
    return total;
  };
  const check = (projected: number): void => {
    const cap = options.maxCostUsd;
    if (capped || cap === undefined) return;
    if (spent() + projected > cap) {
      capped = true;
      options.onCap?.();
    }
  };

  return {
    update(runId, cumulative) {
      const state = stateOf(runId);
      const next = usageByKind(cumulative);
      const call = minus(next, state.usage);
      state.usage = next;
      if (options.rates) {
        state.cost += costOfCall(call, options.rates);
      }
      // The next call of this run resends everything this one read: project its cost.
      const projected = options.rates
        ? costOfCall({ ...zero(), cacheRead: call.input + call.cacheWrite + call.cacheRead }, options.rates)
        : 0;
      check(projected);
    },
    finish(runId, result) {
      const state = stateOf(runId);
      const final = usageByKind(result.usage);
      const rest = minus(final, state.usage);
      if (options.rates && rest.input + rest.cacheWrite + rest.cacheRead + rest.output > 0) {
        state.cost += costOfCall(rest, options.rates);
      }
      state.usage = final;
      if (result.costUsd !== undefined) state.reported = result.costUsd;
      check(0);
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
        if (options.rates) total += run.cost;
        else if (run.reported !== undefined) total += run.reported;
        else return null;
      }
      return total;
    },
    get capped() {
      return capped;
    },
  };
}
