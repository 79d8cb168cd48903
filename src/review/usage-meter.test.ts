import { describe, expect, it } from 'vitest';
import { ratesFromOverride } from '../agent/pricing.js';
import type { AgentRunResult } from '../agent/types.js';
import { createUsageMeter } from './usage-meter.js';

const rates = ratesFromOverride({
  input_per_mtok: 3,
  output_per_mtok: 15,
  cache_write_per_mtok: 3.75,
  cache_read_per_mtok: 0.3,
});

function result(usage: AgentRunResult['usage'], costUsd?: number): AgentRunResult {
  return {
    text: '',
    sessionId: 's',
    model: 'm',
    usage,
    turns: 1,
    messages: [],
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

describe('createUsageMeter', () => {
  it('turns cumulative usage events into tokens by kind and prices each call', () => {
    const meter = createUsageMeter({ rates });
    meter.update(1, { inputTokens: 10_000, outputTokens: 100, cacheWriteTokens: 9_000 });
    meter.update(1, {
      inputTokens: 20_000,
      outputTokens: 300,
      cacheWriteTokens: 9_500,
      cacheReadTokens: 9_000,
    });
    meter.finish(
      1,
      result({ inputTokens: 20_000, outputTokens: 300, cacheWriteTokens: 9_500, cacheReadTokens: 9_000 }),
    );
    meter.update(2, { inputTokens: 1_000, outputTokens: 50 });
    meter.finish(2, result({ inputTokens: 1_000, outputTokens: 50 }));
    expect(meter.tokens()).toEqual({ input: 2_500, cacheWrite: 9_500, cacheRead: 9_000, output: 350 });
    const expected = (2_500 * 3 + 9_500 * 3.75 + 9_000 * 0.3 + 350 * 15) / 1e6;
    expect(meter.costUsd()).toBeCloseTo(expected, 9);
    expect(meter.usage()).toEqual({
      inputTokens: 21_000,
      outputTokens: 350,
      cacheReadTokens: 9_000,
      cacheWriteTokens: 9_500,
    });
    expect(meter.capped).toBe(false);
  });

  it('is null without a price unless every run reports its own cost', () => {
    const unknown = createUsageMeter({ rates: null });
    unknown.finish(1, result({ inputTokens: 100, outputTokens: 10 }));
    expect(unknown.costUsd()).toBeNull();
    const reported = createUsageMeter({ rates: null });
    reported.finish(1, result({ inputTokens: 100, outputTokens: 10 }, 0.25));
    expect(reported.costUsd()).toBe(0.25);
  });

  it('fires the cap once when the spend plus the next call would pass it', () => {
    let fired = 0;
    const meter = createUsageMeter({ rates, maxCostUsd: 0.05, onCap: () => fired++ });
    meter.update(1, { inputTokens: 5_000, outputTokens: 10 }); // $0.015 + next ≈ $0.0015
    expect(fired).toBe(0);
    meter.update(1, { inputTokens: 15_000, outputTokens: 20 }); // +$0.03 = $0.045, next ≈ $0.003 → $0.048
    expect(fired).toBe(0);
    meter.update(1, { inputTokens: 30_000, outputTokens: 30 }); // passes $0.05
    meter.update(1, { inputTokens: 40_000, outputTokens: 40 });
    expect(fired).toBe(1);
    expect(meter.capped).toBe(true);
  });
});
