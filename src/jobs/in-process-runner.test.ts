import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createDispatcher } from './handle-comment.js';
import { createInProcessJobRunner } from './in-process-runner.js';
import { metricValue, startJobFixture, type JobFixture } from './job-fixture.test-helper.js';
import { makeComment, makePayload } from './records.test-helper.js';
import { runJob } from './run-job.js';
import type { JobPayload } from './types.js';

/** An `execute` whose jobs finish when the test says so. */
function gatedExecute() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const waiters = new Map<string, () => void>();
  return {
    started,
    execute(payload: JobPayload): Promise<void> {
      started.push(payload.prompt);
      waiters.get(payload.prompt)?.();
      return new Promise<void>((resolve) => gates.set(payload.prompt, resolve));
    },
    whenStarted(prompt: string): Promise<void> {
      if (started.includes(prompt)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(prompt, resolve));
    },
    finish(prompt: string): void {
      const gate = gates.get(prompt);
      if (!gate) throw new Error(`${prompt} is not running`);
      gates.delete(prompt);
      gate();
    },
  };
}

const onPr = (prNumber: number, prompt: string, botType: 'reviewer' | 'worker' = 'reviewer') =>
  makePayload(botType, prompt, makeComment({ prNumber }));

describe('createInProcessJobRunner', () => {
  it('runs one job at a time per session key, keys concurrently, and reports the queue depth', async () => {
    const jobs = gatedExecute();
    const metrics = createMetrics({ defaultMetrics: false });
    const runner = createInProcessJobRunner({
      maxConcurrentJobs: 4,
      execute: (p) => jobs.execute(p),
      logger: silentLogger(),
      metrics,
    });
    runner.submit(onPr(1, 'a1'));
    runner.submit(onPr(1, 'a2'));
    runner.submit(onPr(2, 'b1'));
    runner.submit(onPr(1, 'w1', 'worker'));
    expect(runner.depth()).toBe(4);
    const depth = async () => metricValue(await metrics.registry.metrics(), 'reviewbot_queue_depth', '');
    expect(await depth()).toBe(4);
    await Promise.all([jobs.whenStarted('a1'), jobs.whenStarted('b1'), jobs.whenStarted('w1')]);
    expect(jobs.started.sort()).toEqual(['a1', 'b1', 'w1']);
    expect(runner.isBusy('github', 'ACME/widgets', 1)).toBe(true);
    expect(runner.isBusy('gitlab', 'acme/widgets', 1)).toBe(false);
    expect(runner.isBusy('github', 'acme/widgets', 3)).toBe(false);
    jobs.finish('a1');
    await jobs.whenStarted('a2');
    for (const name of ['a2', 'b1', 'w1']) jobs.finish(name);
    await runner.idle();
    expect(runner.depth()).toBe(0);
    expect(await depth()).toBe(0);
    expect(runner.isBusy('github', 'acme/widgets', 1)).toBe(false);
  });

  it('waits for `before` before starting the job', async () => {
    const jobs = gatedExecute();
    const runner = createInProcessJobRunner({
      maxConcurrentJobs: 1,
      execute: (p) => jobs.execute(p),
      logger: silentLogger(),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    let react: () => void = () => undefined;
    const reaction = new Promise<void>((resolve) => {
      react = resolve;
    });
    runner.submit(onPr(1, 'a1'), { before: reaction });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(jobs.started).toEqual([]);
    react();
    await jobs.whenStarted('a1');
    jobs.finish('a1');
    await runner.idle();
  });

  it('shutdown returns queued jobs as dropped and refuses later submissions', async () => {
    const jobs = gatedExecute();
    const runner = createInProcessJobRunner({
      maxConcurrentJobs: 1,
      execute: (p) => jobs.execute(p),
      logger: silentLogger(),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    runner.submit(onPr(1, 'a1'));
    runner.submit(onPr(1, 'a2'));
    runner.submit(onPr(2, 'b1'));
    await jobs.whenStarted('a1');
    const stopping = runner.shutdown(5_000);
    runner.submit(onPr(3, 'late'));
    jobs.finish('a1');
    const dropped = await stopping;
    expect(dropped.map((p) => p.prompt).sort()).toEqual(['a2', 'b1']);
    expect(jobs.started).toEqual(['a1']);
  });
});

describe('dispatcher + in-process runner + runJob', () => {
  let fx: JobFixture;
  beforeAll(async () => {
    fx = await startJobFixture();
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('posts the eyes reaction before the job starts, then the review', async () => {
    fx.github.setLatency(500, /reactions/);
    fx.llm.setScript([{ text: '{"summary": "Reviewed after the reaction.", "comments": []}' }]);
    const seeded = fx.github.addIssueComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      body: '@rb-review have a look',
      user: 'alice',
    });
    const runner = createInProcessJobRunner({
      maxConcurrentJobs: 2,
      execute: (payload) => runJob(payload, fx.ctx),
      logger: fx.ctx.logger,
      metrics: fx.ctx.metrics,
    });
    const dispatch = createDispatcher({
      rules: {
        reviewerUsername: 'rb-review',
        workerUsername: 'rb-worker',
        botIdentities: ['reviewbot-test'],
        allowedRepos: ['acme/widgets'],
        triggers: [],
      },
      allowedUsers: ['alice'],
      jobRunner: runner,
      logger: fx.ctx.logger,
    });
    const outcome = dispatch(
      fx.platform,
      fx.comment({ commentId: String(seeded.id), body: '@rb-review have a look' }),
    );
    expect(outcome).toEqual({ status: 'accepted' });
    await runner.idle();

    const ops = fx.github.requests.map((r) => r.operationId);
    const reactionAt = ops.indexOf('reactions/create-for-issue-comment');
    const firstJobCall = ops.indexOf('pulls/get');
    expect(reactionAt).toBeGreaterThanOrEqual(0);
    expect(firstJobCall).toBeGreaterThan(reactionAt);
    expect(fx.github.reactions.map((r) => r.content)).toEqual(['eyes']);
    expect(fx.github.issueComments.at(-1)?.body).toContain('Reviewed after the reaction.');
    expect(fx.llm.requests.at(-1)?.messages.at(-1)?.text).toContain('have a look');
  });
});
