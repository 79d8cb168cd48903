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

  // A call of 35,000 characters (10,000 tokens) and 1,000 output tokens costs at most
  // 10,000 × $3.75 + 1,000 × $15 per million = $0.0525.
  const call = { promptChars: 35_000, maxOutputTokens: 1_000 };

  it('refuses a call whose worst case would pass the cap, counting calls in flight', () => {
    let fired = 0;
    const meter = createUsageMeter({ rates, maxCostUsd: 0.12, onCap: () => fired++ });
    expect(meter.admit(1, call)).toBe(true); // 0.0525 reserved
    expect(meter.admit(2, call)).toBe(true); // 0.105 reserved, in parallel
    expect(meter.admit(3, call)).toBe(false); // 0.1575 > 0.12: never sent
    expect(meter.capped).toBe(true);
    expect(meter.admit(4, { promptChars: 10, maxOutputTokens: 1 })).toBe(false); // capped stays capped
    expect(fired).toBe(0); // a refusal does not abort the calls already admitted
    expect(meter.admit(1, { ...call, promptChars: 36_000 })).toBe(true); // run 1's call, asked again
    meter.update(1, { inputTokens: 10_000, outputTokens: 100, cacheWriteTokens: 10_000 });
    meter.finish(1, result({ inputTokens: 10_000, outputTokens: 100, cacheWriteTokens: 10_000 }));
    meter.abandon(2, true); // aborted in flight: counted at its estimate
    expect(meter.costUsd()).toBeCloseTo((10_000 * 3.75 + 100 * 15) / 1e6 + 0.0525, 9);
    expect(meter.costUsd()!).toBeLessThanOrEqual(0.12);
  });

  it('releases a call that failed without being aborted, and admits again after usage arrives', () => {
    const meter = createUsageMeter({ rates, maxCostUsd: 0.11 });
    expect(meter.admit(1, call)).toBe(true);
    meter.abandon(1, false); // a provider error: nothing billed
    expect(meter.costUsd()).toBe(0);
    expect(meter.admit(2, call)).toBe(true);
    meter.update(2, { inputTokens: 1_000, outputTokens: 10 }); // actual $0.00315, reservation released
    expect(meter.admit(2, call)).toBe(true); // 0.00315 + 0.0525 ≤ 0.11
    expect(meter.admit(3, call)).toBe(true); // + 0.0525 = 0.108
    expect(meter.admit(4, call)).toBe(false);
  });

  it('aborts the runs when the spend itself passes the cap (a runner not asked per call)', () => {
    let fired = 0;
    const meter = createUsageMeter({ rates, maxCostUsd: 0.05, onCap: () => fired++ });
    meter.update(1, { inputTokens: 10_000, outputTokens: 10 }); // $0.03
    expect(fired).toBe(0);
    meter.update(1, { inputTokens: 20_000, outputTokens: 20 }); // $0.06
    meter.update(1, { inputTokens: 30_000, outputTokens: 30 });
    expect(fired).toBe(1);
    expect(meter.capped).toBe(true);
  });

  it('warns when a cap is set but the price is unknown, and never refuses then', () => {
    const meter = createUsageMeter({ rates: null, maxCostUsd: 0.01 });
    expect(meter.warnings).toEqual([expect.stringContaining('cannot be enforced; set agent.pricing')]);
    expect(meter.admit(1, { promptChars: 1e9, maxOutputTokens: 1e6 })).toBe(true);
    expect(createUsageMeter({ rates, maxCostUsd: 0.01 }).warnings).toEqual([]);
    expect(createUsageMeter({ rates: null }).warnings).toEqual([]);
  });

  it('prefers the reported cost of aggregate usage (Claude Code) and prices it without tiers', () => {
    const tiered = {
      ...rates,
      input: { base: 3, tiers: [{ start: 200_000, price: 6 }] },
      output: { base: 15, tiers: [{ start: 200_000, price: 22.5 }] },
    };
    // Ten calls of 30,000 tokens reported as one 300,000-token total: no call passed the tier.
    const total = { inputTokens: 300_000, outputTokens: 1_000 };
    const unreported = createUsageMeter({ rates: tiered, maxCostUsd: 10 });
    unreported.update(1, total, true);
    unreported.finish(1, { ...result(total), usageAggregate: true });
    expect(unreported.costUsd()).toBeCloseTo((300_000 * 3 + 1_000 * 15) / 1e6, 9);
    expect(unreported.capped).toBe(false);
    const reported = createUsageMeter({ rates: tiered });
    reported.update(1, total, true);
    reported.finish(1, { ...result(total, 0.42), usageAggregate: true });
    expect(reported.costUsd()).toBe(0.42);
  });
});
