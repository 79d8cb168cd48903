import { describe, expect, it } from 'vitest';
import { buildReceipt, cappedNotice, formatCost, renderReceipt, type ReceiptInput } from './receipt.js';

function input(overrides: Partial<ReceiptInput> = {}): ReceiptInput {
  return {
    model: 'claude-sonnet-4-5',
    agentRuns: 1,
    turns: 2,
    toolCalls: 0,
    tokens: { input: 1_000, cacheWrite: 0, cacheRead: 250_000, output: 1_000 },
    costUsd: 0.1785,
    durationMs: 1_500,
    reviewedFiles: 1,
    skipped: [],
    notReviewed: [],
    capped: false,
    ...overrides,
  };
}

describe('the cost on a receipt', () => {
  it.each([
    [0.1785, '$0.18'],
    [0.01, '$0.01'],
    [0.009999, '$0.0100'],
    [0.0042, '$0.0042'],
    [0, '$0.0000'],
    [12.345, '$12.35'],
    [null, 'unknown (no price for this model)'],
  ])('formats %s as %s', (cost, text) => {
    expect(formatCost(cost)).toBe(text);
  });

  it('rounds the cost to micro-dollars and keeps a null cost null', () => {
    expect(buildReceipt(input({ costUsd: 0.0000014 })).costUsd).toBe(0.000001);
    expect(buildReceipt(input({ costUsd: 0.0000016 })).costUsd).toBe(0.000002);
    expect(buildReceipt(input({ costUsd: 1.23456789 })).costUsd).toBe(1.234568);
    expect(buildReceipt(input({ costUsd: null })).costUsd).toBeNull();
  });

  it('copies the tokens by kind, so a later change to the meter does not change the receipt', () => {
    const tokens = { input: 1, cacheWrite: 2, cacheRead: 3, output: 4 };
    const receipt = buildReceipt(input({ tokens }));
    tokens.input = 99;
    expect(receipt.tokens).toEqual({ input: 1, cacheWrite: 2, cacheRead: 3, output: 4 });
  });

  it('shows the cost in the summary line and on its own line, and the cap only when it stopped the review', () => {
    const text = renderReceipt(buildReceipt(input()));
    expect(text).toContain(
      '<summary>Review receipt: 1 files reviewed, 0 skipped, 0 not reviewed · $0.18</summary>',
    );
    expect(text).toContain('\n- Cost: $0.18\n');
    expect(text).toContain('- Tokens: 1,000 input · 0 cache write · 250,000 cache read · 1,000 output');
    expect(text).toContain('- Time: 1.5 s');
    expect(text).not.toContain('cost cap');
    const capped = renderReceipt(buildReceipt(input({ capped: true, costUsd: 0.5 })));
    expect(capped).toContain('not reviewed · $0.50 · stopped at the cost cap</summary>');
    expect(capped).toContain('\n- Cost: $0.50 (stopped at the cost cap)\n');
    expect(buildReceipt(input()).capped).toBeUndefined();
  });

  it('names the cap setting and its value in the capped notice', () => {
    expect(cappedNotice(0.25)).toBe(
      '**Stopped at the cost cap** (`review.max_cost_usd` = $0.25): the agent runs were stopped and this ' +
        'review holds what they found before that; see the receipt below.',
    );
  });
});
