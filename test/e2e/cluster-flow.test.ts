/**
 * Cluster mode end to end: a mention becomes a Kubernetes Job whose pod (`reviewbot run-job`, a
 * local process started by the fake Kubernetes) posts the review; queued jobs of one pull request
 * start on the completion signal; a conversation continues across two pods through Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_TOKEN, LLM_KEY, reviewLines } from './cli-fixture.js';
import {
  createClusterFixture,
  createdAt,
  creationsPerJobId,
  jobIdOf,
  JOB_IMAGE,
  JOB_SECRET,
  mention,
  prOf,
  promptOf,
  type ClusterFixture,
} from './cluster-fixture.js';
import { jobTag, requestText, summaryReply, waitFor } from './serve-fixture.js';

describe('reviewbot serve in cluster mode: Jobs', () => {
  let fx: ClusterFixture;
  beforeAll(async () => {
    fx = await createClusterFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  it('runs each mention as a Job, one at a time per pull request, the next one on the completion signal', async () => {
    fx.llm.setScript((request) => summaryReply(`Reviewed job-${jobTag(request) ?? '?'}.`, 300));
    for (const tag of ['Q1', 'Q2', 'Q3']) await mention(fx, 7, `job-${tag} please review`);
    for (const tag of ['Q1', 'Q2', 'Q3']) {
      await waitFor(
        () => fx.github.issueComments.find((c) => c.body?.includes(`Reviewed job-${tag}.`)),
        40_000,
        `the reply to job-${tag}`,
      );
    }
    const jobs = fx.k8s.jobs.filter((job) => prOf(job) === 7);
    expect(jobs.map(promptOf)).toEqual([
      'job-Q1 please review',
      'job-Q2 please review',
      'job-Q3 please review',
    ]);
    // Every pod ran to success and published its completion.
    await waitFor(() => fx.k8s.runs.length === 3 && fx.k8s.runs.every((r) => r.endedAt), 10_000, 'pod exits');
    expect(fx.k8s.runs.map((r) => r.exitCode)).toEqual([0, 0, 0]);
    expect([...creationsPerJobId(fx.k8s).values()]).toEqual([1, 1, 1]);
    for (const [index, job] of jobs.entries()) {
      const record = JSON.parse((await fx.store.get(`reviewbot:done:${jobIdOf(job)}`)) ?? '{}') as object;
      expect(record).toMatchObject({ jobId: jobIdOf(job), status: 'succeeded' });
      const ttl = await fx.store.ttl(`reviewbot:done:${jobIdOf(job)}`);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
      if (index === 0) continue;
      // The next Job was created after the previous one signalled, and promptly: no 5 s poll.
      const signal = fx.done.find((d) => d.jobId === jobIdOf(jobs[index - 1]!));
      expect(signal).toBeDefined();
      const gap = createdAt(fx.k8s, jobs[index]!.metadata!.name!) - signal!.finishedAt;
      expect(gap).toBeGreaterThanOrEqual(0);
      expect(gap).toBeLessThan(1500);
    }
    // The queue of the key is empty again.
    expect(await fx.store.llen('reviewbot:queue:github:acme/widgets:7:reviewer')).toBe(0);
  }, 60_000);

  it('builds Jobs as CONTRACT §10 says, with secrets only through envFrom', () => {
    const job = fx.k8s.jobs[0]!;
    expect(fx.k8s.rejections).toEqual([]);
    expect(job.metadata?.namespace).toBe('reviewbot');
    expect(job.metadata?.generateName).toBe('reviewbot-acme-widgets-7-');
    expect(job.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'github',
      'reviewbot/repo': 'acme-widgets',
      'reviewbot/pr-number': '7',
    });
    const container = job.spec?.template.spec?.containers[0];
    expect(container?.image).toBe(JOB_IMAGE);
    expect(container?.command).toEqual(['reviewbot', 'run-job']);
    expect(container?.envFrom).toEqual([{ secretRef: { name: JOB_SECRET } }]);
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      STORE_URL: fx.redis.url,
      STORE_KEY_TTL_SECONDS: '3600',
      WORKSPACE_BASE_DIR: '/workspace',
      AGENT_PROVIDER: 'anthropic',
      CODEHOST_API_URL: fx.github.url,
      REVIEWER_BOT_USERNAME: 'review-bot',
    });
    const everything = JSON.stringify(fx.k8s.jobs);
    expect(everything).not.toContain(GITHUB_TOKEN);
    expect(everything).not.toContain(LLM_KEY);
    // The pods did get the secrets, from the Secret.
    expect(fx.k8s.runs[0]?.env.CODEHOST_TOKEN).toBe(GITHUB_TOKEN);
    expect(fx.server.stdout()).not.toContain(GITHUB_TOKEN);
    expect(fx.server.stdout()).not.toContain(LLM_KEY);
  });

  it('posts the review a Job pod produced, its finding inline on the diff', async () => {
    const right = reviewLines(fx.scenario).right;
    const finding = { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' };
    fx.llm.setScript([{ text: JSON.stringify({ summary: 'One point from the pod.', comments: [finding] }) }]);
    const reviews = fx.github.reviews.length;
    await mention(fx, 7, 'review the constants');
    const review = await waitFor(() => fx.github.reviews[reviews], 30_000, 'the review');
    expect(review.state).toBe('COMMENTED');
    expect(review.commit_id).toBe(fx.scenario.headSha);
    expect(review.body).toContain('One point from the pod.');
    const inline = fx.github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(inline.map((c) => [c.path, c.line, c.side, c.body])).toEqual([
      [right.path, right.line, 'RIGHT', expect.stringContaining('Name this constant.')],
    ]);
    expect(fx.github.violations).toEqual([]);
  }, 40_000);

  it('continues a conversation in a second pod from the history stored in Redis', async () => {
    fx.llm.setScript([summaryReply('The parser looks fine.'), summaryReply('Yes, v3 changed to 300.')]);
    const calls = fx.llm.requests.length;
    const pods = fx.k8s.runs.length;
    await mention(fx, 8, 'what about the parser?');
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('The parser looks fine.')),
      30_000,
      'first answer',
    );
    // The pod saves the conversation right after it posts the answer: wait for the key.
    const key = 'reviewbot:conv:github:acme/widgets:8:reviewer';
    let stored = await fx.store.get(key);
    for (const deadline = Date.now() + 10_000; stored === null && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 50));
      stored = await fx.store.get(key);
    }
    expect(stored).toContain('what about the parser?');
    expect(stored).toContain('The parser looks fine.');
    const ttl = await fx.store.ttl('reviewbot:conv:github:acme/widgets:8:reviewer');
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);

    await mention(fx, 8, 'and did v3 change?');
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Yes, v3 changed to 300.')),
      30_000,
      'second answer',
    );
    // Two separate pods (processes with their own emptyDir workspaces) answered.
    const [first, second] = fx.k8s.runs.slice(pods);
    expect(first?.podName).not.toBe(second?.podName);
    expect(first?.mounts['/workspace']).not.toBe(second?.mounts['/workspace']);
    const text = requestText(fx.llm.requests[calls + 1]!);
    expect(text).toContain('what about the parser?');
    expect(text).toContain('The parser looks fine.');
    expect(text).toContain('and did v3 change?');
    expect(requestText(fx.llm.requests[calls]!)).not.toContain('Yes, v3 changed');
  }, 60_000);
});
