import { describe, expect, it } from 'vitest';
import { costCapWarnings, reviewLimitsOf } from './limits.js';
import { formatCost } from './receipt.js';
import { createUsageMeter } from './usage-meter.js';

/** A default install: `agent.provider` set, `agent.model` unset (the provider's default model). */
function defaultInstall(maxCostUsd?: number) {
  return {
    agent: { provider: 'anthropic' as const },
    review: {
      ignore: [],
      max_diff_tokens: 60_000,
      max_parts: 8,
      max_parallel_runs: 2,
      ...(maxCostUsd === undefined ? {} : { max_cost_usd: maxCostUsd }),
    },
  } as unknown as Parameters<typeof reviewLimitsOf>[0];
}

describe('a default install (issue 22)', () => {
  it('prices its reviews: the receipt shows a cost and review.max_cost_usd acts', async () => {
    const limits = await reviewLimitsOf(defaultInstall(0.5));
    expect(limits.rates).not.toBeNull();
    expect(await costCapWarnings(defaultInstall(0.5))).toEqual([]);
    const meter = createUsageMeter({ rates: limits.rates, maxCostUsd: limits.maxCostUsd });
    expect(meter.admit(1, { promptChars: 35_000, maxOutputTokens: 1_000 })).toBe(true);
    meter.update(1, { inputTokens: 10_000, outputTokens: 1_000 });
    meter.finish(1, {
      text: '',
      sessionId: 's',
      model: 'claude-sonnet-5-5',
      usage: { inputTokens: 10_000, outputTokens: 1_000 },
      turns: 1,
      messages: [],
    });
    // 10,000 input tokens at $2/M plus 1,000 output tokens at $10/M.
    expect(meter.costUsd()).toBeCloseTo(0.03, 6);
    expect(formatCost(meter.costUsd())).toBe('$0.03');
    // A call that would pass the cap is refused before it is sent.
    expect(meter.admit(2, { promptChars: 3_500_000, maxOutputTokens: 16_384 })).toBe(false);
    expect(meter.capped).toBe(true);
  });
});
