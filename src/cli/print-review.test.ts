import { describe, expect, it } from 'vitest';
import { formatReview } from './print-review.js';
import type { ExecuteReviewResult } from '../review/types.js';

describe('formatReview', () => {
  it('prints the receipt: runs, tokens by kind, cost, coverage and skipped files by reason', () => {
    const result: ExecuteReviewResult = {
      summary: 'Fine.',
      findings: [],
      rejected: [],
      body: 'Fine.',
      sessionId: 's',
      model: 'claude-sonnet-4-5',
      usage: { inputTokens: 7100, outputTokens: 300 },
      durationMs: 2500,
      warnings: [],
      receipt: {
        model: 'claude-sonnet-4-5',
        agentRuns: 2,
        turns: 5,
        toolCalls: 3,
        tokens: { input: 100, cacheWrite: 2000, cacheRead: 5000, output: 300 },
        costUsd: null,
        durationMs: 2500,
        files: {
          reviewed: 12,
          skipped: [
            { path: 'yarn.lock', reason: 'lock file' },
            { path: 'vendor/x.go', reason: 'vendored' },
          ],
          notReviewed: ['docs/a.md'],
        },
        capped: true,
      },
    };
    const text = formatReview(result, {
      color: false,
      title: 'acme/widgets#1 "x"',
      postedLine: 'Not posted.',
    });
    expect(text).toContain(
      'receipt: 2 agent run(s), 5 turns, 3 tool calls · tokens 100 input, 2000 cache write, 5000 cache read, 300 output · cost unknown (no price for this model) · stopped at the cost cap',
    );
    expect(text).toContain('files: 12 reviewed, 2 skipped, 1 not reviewed');
    expect(text).toContain('skipped: lock file 1, vendored 1');
    expect(text).toContain('not reviewed: docs/a.md');
  });

  it('prints what running code said: each verified finding, the refuted ones apart, the counts', () => {
    const verification = (status: 'confirmed' | 'refuted' | 'skipped', reason?: string) => ({
      status,
      command: status === 'skipped' ? '' : 'node probe.mjs\necho done',
      output: '-1',
      explanation: '',
      ...(reason ? { reason } : {}),
      durationMs: 10,
    });
    const finding = (body: string) => ({
      path: 'src/add.js',
      line: 2,
      side: 'RIGHT' as const,
      body,
      severity: 'P1' as const,
      confidence: null,
    });
    const result: ExecuteReviewResult = {
      summary: 'Fine.',
      findings: [
        { ...finding('Subtracts.'), verification: verification('confirmed') },
        { ...finding('Overflows.'), verification: verification('skipped', 'no tool sandbox is available') },
      ],
      rejected: [],
      refuted: [{ ...finding('Divides.'), verification: verification('refuted') }],
      body: 'Fine.',
      sessionId: 's',
      model: 'm',
      usage: { inputTokens: 1, outputTokens: 1 },
      durationMs: 1,
      warnings: [],
      receipt: {
        model: 'm',
        agentRuns: 3,
        turns: 5,
        toolCalls: 5,
        tokens: { input: 1, cacheWrite: 0, cacheRead: 0, output: 1 },
        costUsd: null,
        durationMs: 1,
        files: { reviewed: 1, skipped: [], notReviewed: [] },
        verification: {
          confirmed: 1,
          refuted: 1,
          inconclusive: 0,
          skipped: 1,
          durationMs: 9,
          skippedReason: 'no tool sandbox is available',
        },
      },
    };
    const text = formatReview(result, { color: false, title: 't', postedLine: 'Not posted.' });
    expect(text).toContain('    Subtracts.\n    confirmed by running code: node probe.mjs\n');
    expect(text).toContain('    Overflows.\n    not verified (no tool sandbox is available)\n');
    expect(text).toContain('Refuted by running code, not posted (1)');
    expect(text).toContain('    Divides.\n    refuted by running code: node probe.mjs\n');
    expect(text).toContain(
      'verification: 1 confirmed, 1 refuted, 0 inconclusive, 1 skipped (no tool sandbox is available)',
    );
  });
});
