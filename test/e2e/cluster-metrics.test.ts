/**
 * Cluster metrics (issue 22 item 4): each Job pod (`reviewbot run-job`, a real process started by
 * the fake Kubernetes) adds its review's tokens by kind and cost to the store once per job id, and
 * the server's `/metrics` exports the totals under the standalone metric names and labels. A Job
 * that runs again under the same job id (a Kubernetes retry) is not counted twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue } from '../../src/jobs/job-fixture.test-helper.js';
import { runCli } from '../support/run-cli.js';
import { createClusterFixture, jobIdOf, mention, waitUntil, type ClusterFixture } from './cluster-fixture.js';

const answer = (summary: string, inputTokens: number, outputTokens: number) => ({
  text: JSON.stringify({ summary, comments: [] }),
  usage: { inputTokens, outputTokens },
});

describe('reviewbot serve in cluster mode: /metrics', () => {
  let fx: ClusterFixture;
  beforeAll(async () => {
    fx = await createClusterFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  const scrape = async () => (await fetch(`${fx.server.url}/metrics`)).text();
  const sample = (text: string, name: string, labels = '') => metricValue(text, name, labels) ?? 0;

  it('exports the tokens and cost of two Jobs, and counts a retried job id once', async () => {
    fx.llm.setScript([answer('First pod.', 1200, 80), answer('Second pod.', 800, 40)]);
    await mention(fx, 7, 'first look');
    await waitUntil(async () => fx.done.length >= 1, 40_000, 'the first Job');
    await mention(fx, 7, 'second look');
    await waitUntil(async () => fx.done.length >= 2, 40_000, 'the second Job');
    expect(fx.done.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);

    // Each Job recorded its own usage under its job id.
    const jobIds = fx.k8s.jobs.map(jobIdOf);
    expect(jobIds).toHaveLength(2);
    const perJob = await Promise.all(jobIds.map((id) => fx.store.hgetall(`reviewbot:usage:job:${id}`)));
    expect(perJob.map((h) => Number(h['agent_tokens:reviewer:input']))).toEqual([1200, 800]);
    expect(perJob.map((h) => Number(h['agent_tokens:reviewer:output']))).toEqual([80, 40]);

    // One scrape of the server (which ran no job itself) sees both, labelled as in standalone mode.
    const sum = (field: string) => perJob.reduce((total, h) => total + Number(h[field] ?? 0), 0);
    const text = await scrape();
    expect(sample(text, 'reviewbot_agent_tokens_total', 'bot_type="reviewer",direction="input"')).toBe(2000);
    expect(sample(text, 'reviewbot_agent_tokens_total', 'bot_type="reviewer",direction="output"')).toBe(120);
    for (const kind of ['input', 'cache_write', 'cache_read', 'output']) {
      expect(sample(text, 'reviewbot_review_tokens_total', `kind="${kind}"`)).toBe(
        sum(`review_tokens:${kind}`),
      );
    }
    expect(sum('review_tokens:input') + sum('review_tokens:cache_read')).toBeGreaterThan(0);
    expect(sample(text, 'reviewbot_review_cost_usd_total')).toBeCloseTo(sum('review_cost_usd'), 9);
    expect(sample(text, 'reviewbot_reviews_unpriced_total')).toBe(sum('reviews_unpriced'));
    expect(sum('review_cost_usd') + sum('reviews_unpriced')).toBeGreaterThan(0);

    // The pods showed their progress on the head commit (CONTRACT §18), the server none itself.
    expect(fx.github.statuses.map((s) => [s.context, s.state])).toEqual([
      ['reviewbot', 'pending'],
      ['reviewbot', 'success'],
      ['reviewbot', 'pending'],
      ['reviewbot', 'success'],
    ]);

    // Kubernetes retries the first Job: its pod runs again with the same payload and job id.
    const first = fx.k8s.runs.find((r) => r.env.REVIEWBOT_JOB_PAYLOAD?.includes(jobIds[0]!));
    expect(first).toBeDefined();
    fx.llm.setScript([answer('Retried pod.', 5000, 500)]);
    const retry = await runCli(['run-job'], first!.env, 60_000);
    expect(retry.code).toBe(0);
    expect(retry.stderr).toContain('recorded before (a retried Job); not counted again');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the scrape cache
    const after = await scrape();
    expect(sample(after, 'reviewbot_agent_tokens_total', 'bot_type="reviewer",direction="input"')).toBe(2000);
    expect(sample(after, 'reviewbot_review_cost_usd_total')).toBeCloseTo(sum('review_cost_usd'), 9);
  }, 120_000);
});
