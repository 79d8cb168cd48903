/**
 * Two `reviewbot serve` replicas (separate processes and ports) sharing one Redis and one
 * Kubernetes API: webhooks reach either replica, yet a pull request never has two Jobs at once,
 * two pull requests run at the same time, and every mention runs exactly once.
 */
import type { V1Job } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from '../support/serve-process.js';
import {
  createClusterFixture,
  createdAt,
  creationsPerJobId,
  jobIdOf,
  mention,
  prOf,
  promptOf,
  waitUntil,
  type ClusterFixture,
} from './cluster-fixture.js';
import { jobTag, summaryReply, waitFor } from './serve-fixture.js';

/** A Job's life as the servers see it: created (fake's clock) to its pod's `finishedAt` signal. */
interface Span {
  pr: number;
  prompt: string;
  start: number;
  end: number;
}

describe('reviewbot serve in cluster mode: two replicas', () => {
  let fx: ClusterFixture;
  let a: ServeProcess;
  let b: ServeProcess;
  beforeAll(async () => {
    fx = await createClusterFixture();
    a = fx.server;
    b = await fx.startReplica();
    fx.llm.setScript((request) => summaryReply(`Reviewed job-${jobTag(request) ?? '?'}.`, 400));
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  const repliesTo = (tag: string) =>
    fx.github.issueComments.filter((c) => c.body?.includes(`Reviewed job-${tag}.`)).length;
  const created = (server: ServeProcess) =>
    server.logs.filter((l) => l.msg === 'Kubernetes Job created').length;

  function spanOf(job: V1Job): Span {
    const signal = fx.done.find((d) => d.jobId === jobIdOf(job));
    if (!signal) throw new Error(`no completion signal for ${promptOf(job)}`);
    return {
      pr: prOf(job),
      prompt: promptOf(job),
      start: createdAt(fx.k8s, job.metadata!.name!),
      end: signal.finishedAt,
    };
  }

  /** Fails when two Jobs of one pull request were alive at the same time. */
  function expectOneAtATimePerPullRequest(spans: Span[]): void {
    for (const pr of new Set(spans.map((s) => s.pr))) {
      const mine = spans.filter((s) => s.pr === pr).sort((x, y) => x.start - y.start);
      for (let i = 1; i < mine.length; i += 1) {
        expect(
          mine[i]!.start,
          `${mine[i]!.prompt} started before ${mine[i - 1]!.prompt} ended`,
        ).toBeGreaterThanOrEqual(mine[i - 1]!.end);
      }
    }
  }

  it('never runs two Jobs of one pull request at once, while two pull requests run together', async () => {
    const plan: Array<[string, number, ServeProcess]> = [
      ['U1', 7, a],
      ['V1', 8, b],
      ['U2', 7, b],
      ['V2', 8, a],
      ['U3', 7, a],
      ['V3', 8, b],
      ['U4', 7, b],
      ['V4', 8, a],
    ];
    // Replica a takes #7 and replica b takes #8 (each the first to see a mention of it); every
    // later mention goes to the replica that does not consume the pull request's queue.
    for (const [index, [tag, pr, server]] of plan.entries()) {
      await mention(fx, pr, `job-${tag} review`, server);
      if (index < 2) await fx.k8s.waitForJobs(index + 1, 20_000);
    }
    await waitFor(() => plan.every(([tag]) => repliesTo(tag) >= 1), 60_000, 'every reply');
    await waitFor(() => fx.done.length >= plan.length, 10_000, 'every completion signal');
    expect(plan.map(([tag]) => repliesTo(tag))).toEqual(plan.map(() => 1));
    expect(fx.k8s.jobs).toHaveLength(plan.length);
    expect([...creationsPerJobId(fx.k8s).values()].every((n) => n === 1)).toBe(true);
    const spans = fx.k8s.jobs.map(spanOf);
    expectOneAtATimePerPullRequest(spans);
    // The pull requests overlapped: some Job of #7 lived while one of #8 did.
    const overlap = spans.some(
      (x) => x.pr === 7 && spans.some((y) => y.pr === 8 && y.start < x.end && x.start < y.end),
    );
    expect(overlap).toBe(true);
    // Each replica consumed the queue of the pull request it saw first.
    expect(created(a)).toBe(4);
    expect(created(b)).toBe(4);
    expect(a.logs.filter((l) => l.msg === 'Kubernetes Job created').every((l) => l.pr === 7)).toBe(true);
  }, 80_000);

  it('hands a drained pull request to whichever replica gets its next mention', async () => {
    // Replica a gives #7 up once its queue is empty (its lease goes with it).
    await waitUntil(
      async () => (await fx.store.exists('reviewbot:lease:github:acme/widgets:7:reviewer')) === 0,
      10_000,
      'replica a to release #7',
    );
    const before = { a: created(a), b: created(b), jobs: fx.k8s.jobs.length };
    await mention(fx, 7, 'job-W1 review', b);
    await waitFor(() => created(b) > before.b, 20_000, 'replica b to take #7');
    await mention(fx, 7, 'job-W2 review', a);
    await mention(fx, 7, 'job-W3 review', b);
    await waitFor(() => ['W1', 'W2', 'W3'].every((tag) => repliesTo(tag) === 1), 30_000, 'every reply');
    await waitFor(() => fx.done.length >= before.jobs + 3, 10_000, 'every completion signal');
    const jobs = fx.k8s.jobs.slice(before.jobs);
    expect(jobs.map(promptOf)).toEqual(['job-W1 review', 'job-W2 review', 'job-W3 review']);
    expectOneAtATimePerPullRequest(fx.k8s.jobs.map(spanOf));
    // Replica b took over the key replica a had consumed before, and kept it.
    expect(created(b) - before.b).toBe(3);
    expect(created(a)).toBe(before.a);
  }, 40_000);
});
