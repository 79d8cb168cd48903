import { describe, expect, it } from 'vitest';
import { buildReceipt, renderReceipt } from './receipt.js';

describe('receipt', () => {
  const receipt = buildReceipt({
    model: 'claude-sonnet-4-5',
    agentRuns: 3,
    turns: 7,
    toolCalls: 5,
    tokens: { input: 1200, cacheWrite: 50_000, cacheRead: 90_000, output: 800 },
    costUsd: 0.2412345678,
    durationMs: 12_345,
    reviewedFiles: 40,
    skipped: [
      { path: 'package-lock.json', reason: 'lock file' },
      { path: 'gen/`x`.ts', reason: 'generated' },
    ],
    notReviewed: ['docs/a.md'],
    capped: false,
  });

  it('holds the facts of §15 (cost rounded to micro-dollars, capped only when true)', () => {
    expect(receipt).toEqual({
      model: 'claude-sonnet-4-5',
      agentRuns: 3,
      turns: 7,
      toolCalls: 5,
      tokens: { input: 1200, cacheWrite: 50_000, cacheRead: 90_000, output: 800 },
      costUsd: 0.241235,
      durationMs: 12_345,
      files: {
        reviewed: 40,
        skipped: [
          { path: 'package-lock.json', reason: 'lock file' },
          { path: 'gen/`x`.ts', reason: 'generated' },
        ],
        notReviewed: ['docs/a.md'],
      },
    });
  });

  it('renders a collapsed <details> block with every fact and each file as a code span', () => {
    const text = renderReceipt(receipt);
    expect(
      text.startsWith(
        '<details>\n<summary>Review receipt: 40 files reviewed, 2 skipped, 1 not reviewed · $0.24</summary>',
      ),
    ).toBe(true);
    expect(text).toContain('- Tokens: 1,200 input · 50,000 cache write · 90,000 cache read · 800 output');
    expect(text).toContain('- Agent runs: 3 · turns: 7 · tool calls: 5');
    expect(text).toContain('Skipped (lock file 1, generated 1):');
    expect(text).toContain('- `package-lock.json` (lock file)');
    expect(text).toContain('- ``gen/`x`.ts`` (generated)');
    expect(text).toContain('- `docs/a.md`');
    expect(text.endsWith('</details>')).toBe(true);
  });

  it('says unknown for a null cost and names the cap', () => {
    const capped = buildReceipt({ ...receiptInput(), costUsd: null, capped: true });
    expect(capped.capped).toBe(true);
    expect(renderReceipt(capped)).toContain(
      'Cost: unknown (no price for this model) (stopped at the cost cap)',
    );
  });
});

function receiptInput() {
  return {
    model: 'm',
    agentRuns: 1,
    turns: 1,
    toolCalls: 0,
    tokens: { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 },
    costUsd: 0,
    durationMs: 0,
    reviewedFiles: 0,
    skipped: [],
    notReviewed: [],
    capped: false,
  };
}
