import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Pricing from '../agent/pricing.js';

const resolved = vi.hoisted(() => ({ calls: [] as unknown[][] }));
vi.mock('../agent/pricing.js', async (importOriginal) => {
  const original = await importOriginal<typeof Pricing>();
  return {
    ...original,
    resolveModelRates: vi.fn(async (...args: Parameters<typeof original.resolveModelRates>) => {
      resolved.calls.push(args);
      return null;
    }),
  };
});

const { costCapWarnings, reviewLimitsOf } = await import('./limits.js');

function config(model: string, maxCost?: number) {
  return {
    agent: { provider: 'anthropic' as const, model },
    review: {
      ignore: [],
      max_diff_tokens: 60_000,
      max_parts: 8,
      max_parallel_runs: 2,
      ...(maxCost === undefined ? {} : { max_cost_usd: maxCost }),
    },
  } as unknown as Parameters<typeof reviewLimitsOf>[0];
}

describe('reviewLimitsOf', () => {
  afterEach(() => {
    resolved.calls.length = 0;
  });

  it('resolves the price table once per model and pricing, not on every review', async () => {
    await reviewLimitsOf(config('claude-sonnet-4-5'));
    await reviewLimitsOf(config('claude-sonnet-4-5', 1));
    await reviewLimitsOf(config('claude-sonnet-4-5'));
    expect(resolved.calls).toHaveLength(1);
    await reviewLimitsOf(config('claude-opus-4-1'));
    expect(resolved.calls).toHaveLength(2);
  });

  it('warns at start-up when a cost cap is set but the model has no price', async () => {
    expect(await costCapWarnings(config('unknown-model-x', 2))).toEqual([
      expect.stringContaining('review.max_cost_usd (2) is set but the model'),
    ]);
    expect(await costCapWarnings(config('unknown-model-x'))).toEqual([]);
  });
});
