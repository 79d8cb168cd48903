import { describe, expect, it } from 'vitest';
import { createMetrics, SOURCE_TIMEOUT_MS } from './metrics.js';

describe('metrics of review receipts (§15)', () => {
  it('counts tokens by kind, cost, skipped files by reason, files not reviewed and capped reviews', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const receipt = {
      model: 'm',
      agentRuns: 2,
      turns: 4,
      toolCalls: 3,
      tokens: { input: 100, cacheWrite: 2000, cacheRead: 5000, output: 300 },
      costUsd: 0.25,
      durationMs: 1000,
      files: {
        reviewed: 10,
        skipped: [
          { path: 'package-lock.json', reason: 'lock file' },
          { path: 'gen/a.ts', reason: 'generated' },
          { path: 'gen/b.ts', reason: 'generated' },
        ],
        notReviewed: ['docs/a.md'],
      },
    };
    metrics.reviewReceipt(receipt);
    metrics.reviewReceipt({ ...receipt, costUsd: null, capped: true });
    const text = await metrics.registry.metrics();
    expect(text).toContain('reviewbot_review_tokens_total{kind="input"} 200');
    expect(text).toContain('reviewbot_review_tokens_total{kind="cache_write"} 4000');
    expect(text).toContain('reviewbot_review_tokens_total{kind="cache_read"} 10000');
    expect(text).toContain('reviewbot_review_tokens_total{kind="output"} 600');
    expect(text).toContain('reviewbot_review_cost_usd_total 0.25');
    expect(text).toContain('reviewbot_reviews_unpriced_total 1');
    expect(text).toContain('reviewbot_review_files_skipped_total{reason="generated"} 4');
    expect(text).toContain('reviewbot_review_files_skipped_total{reason="lock file"} 2');
    expect(text).toContain('reviewbot_review_files_not_reviewed_total 2');
    expect(text).toContain('reviewbot_reviews_capped_total 1');
  });
});

describe('metrics with a totals source (cluster mode)', () => {
  it('exports this process own amounts plus the source totals, and keeps the last answer on a failure', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.agentTokens('reviewer', { inputTokens: 10, outputTokens: 1 });
    let calls = 0;
    let fail = false;
    metrics.addTotalsSource(async () => {
      calls += 1;
      if (fail) throw new Error('store down');
      return {
        'agent_tokens:reviewer:input': 1000,
        'agent_tokens:worker:output': 7,
        'review_tokens:cache_read': 500,
        review_cost_usd: 0.5,
        reviews_unpriced: 2,
      };
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('reviewbot_agent_tokens_total{bot_type="reviewer",direction="input"} 1010');
    expect(text).toContain('reviewbot_agent_tokens_total{bot_type="reviewer",direction="output"} 1');
    expect(text).toContain('reviewbot_agent_tokens_total{bot_type="worker",direction="output"} 7');
    expect(text).toContain('reviewbot_review_tokens_total{kind="cache_read"} 500');
    expect(text).toContain('reviewbot_review_cost_usd_total 0.5');
    expect(text).toContain('reviewbot_reviews_unpriced_total 2');
    // One read per scrape, however many counters it feeds.
    expect(calls).toBe(1);
    fail = true;
    metrics.addTotalsSource(async () => {
      throw new Error('store down');
    });
    metrics.agentTokens('reviewer', { inputTokens: 5, outputTokens: 0 });
    const later = await metrics.registry.metrics();
    expect(later).toContain('reviewbot_agent_tokens_total{bot_type="reviewer",direction="input"} 1015');
  });

  it('answers a scrape within SOURCE_TIMEOUT_MS when the source hangs (the store is down: its client waits)', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.agentTokens('reviewer', { inputTokens: 10, outputTokens: 1 });
    let calls = 0;
    metrics.addTotalsSource(() => {
      calls += 1;
      return new Promise(() => undefined);
    });
    const started = Date.now();
    const text = await metrics.registry.metrics();
    expect(Date.now() - started).toBeLessThan(SOURCE_TIMEOUT_MS + 1000);
    expect(text).toContain('reviewbot_agent_tokens_total{bot_type="reviewer",direction="input"} 10');
    // A read still pending is not repeated by the next scrape (no pile of waiting store reads).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await metrics.registry.metrics();
    expect(calls).toBe(1);
  });
});

describe('metrics of findings (§23)', () => {
  it('counts findings by platform, severity and outcome, also from a totals source', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.findings('github', 'P2', 'posted', 3);
    metrics.findings('github', 'P2', 'posted', 1);
    metrics.findings('gitlab', 'P0', 'addressed', 1);
    metrics.findings('github', 'P1', 'dismissed', 0);
    let text = await metrics.registry.metrics();
    expect(text).toContain('reviewbot_findings_total{platform="github",severity="P2",outcome="posted"} 4');
    expect(text).toContain('reviewbot_findings_total{platform="gitlab",severity="P0",outcome="addressed"} 1');
    expect(text).not.toContain('outcome="dismissed"');
    // Cluster mode: the Job pods' findings (read from the store) add to this process's own.
    metrics.addTotalsSource(async () => ({
      'findings:github:P2:posted': 2,
      'findings:github:P3:dismissed': 1,
    }));
    text = await metrics.registry.metrics();
    expect(text).toContain('reviewbot_findings_total{platform="github",severity="P2",outcome="posted"} 6');
    expect(text).toContain('reviewbot_findings_total{platform="github",severity="P3",outcome="dismissed"} 1');
  });
});
