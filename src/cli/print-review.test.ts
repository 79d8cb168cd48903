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
});
