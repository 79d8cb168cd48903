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

describe('receipt: why files were not reviewed, and the findings', () => {
  it('gives each file not reviewed its reason', () => {
    const receipt = buildReceipt({
      ...receiptInput(),
      notReviewed: ['src/huge.ts', 'src/late.ts'],
      notReviewedReasons: { 'src/huge.ts': 'no diff from the platform' },
    });
    expect(receipt.notReviewedReasons).toEqual({ 'src/huge.ts': 'no diff from the platform' });
    const text = renderReceipt(receipt);
    expect(text).toContain('- `src/huge.ts` (no diff from the platform)');
    expect(text).toContain('- `src/late.ts`\n');
  });

  it('carries no reasons when every file was reviewed', () => {
    const receipt = buildReceipt({ ...receiptInput(), notReviewedReasons: { 'src/a.ts': 'stale' } });
    expect(receipt).not.toHaveProperty('notReviewedReasons');
  });

  it('counts the findings per severity, and those below review.min_severity', () => {
    const findings = { bySeverity: { P0: 1, P1: 0, P2: 2, P3: 0 }, belowThreshold: 3 };
    const receipt = buildReceipt({ ...receiptInput(), findings });
    expect(receipt.findings).toEqual(findings);
    expect(renderReceipt(receipt)).toContain(
      '- Findings: P0 ×1 · P1 ×0 · P2 ×2 · P3 ×0 · 3 below `review.min_severity` (not posted)',
    );
    expect(buildReceipt(receiptInput())).not.toHaveProperty('findings');
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

describe('receipt with hostile paths', () => {
  const hostile = [
    'deps\n\n</details>\n\n@acme/security-team ![img](http://x.invalid/p.png)\n\nyarn.lock',
    'gen/``a`\u202e.js',
    `${'deep/'.repeat(400)}long.min.js`,
  ];
  const text = renderReceipt(
    buildReceipt({
      ...receiptInput(),
      skipped: hostile.map((path) => ({ path, reason: 'generated' })),
      notReviewed: ['late\n\n# Heading\n\n@team'],
    }),
  );

  it('keeps each path in one code span on its own list line: only the receipt closes its block', () => {
    const lines = text.split('\n');
    expect(lines.filter((line) => line.trim() === '</details>')).toEqual(['</details>']);
    expect(lines.at(-1)).toBe('</details>');
    for (const line of lines) expect(line).not.toMatch(/^\s*(?:@|!\[|#|<\/details>.)/);
    expect(text).toContain(
      '- `deps␤␤</details>␤␤@acme/security-team ![img](http://x.invalid/p.png)␤␤yarn.lock` (generated)',
    );
    expect(text).toContain('- ```gen/``a`\\u{202E}.js``` (generated)');
    expect(text).toContain('- `late␤␤# Heading␤␤@team`');
    // A 2,000-character path is cut in the middle, its file name kept.
    const long = lines.find((line) => line.includes('long.min.js')) ?? '';
    expect(long.length).toBeLessThan(300);
    expect(long).toMatch(/^- `deep\/deep\/.*….*\/long\.min\.js` \(generated\)$/);
  });
});
