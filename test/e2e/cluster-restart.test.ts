/**
 * Cluster mode across failures of the server and of Redis: a server SIGKILLed with jobs queued and
 * running is replaced, and the new one runs every remaining job exactly once (one Job per job id,
 * one reply per mention); Redis restarted mid-run (append-only file) and the server reconnects and
 * carries on with the remaining jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from '../support/serve-process.js';
import {
  createClusterFixture,
  createdAt,
  creationsPerJobId,
  mention,
  prOf,
  promptOf,
  waitUntil,
  type ClusterFixture,
} from './cluster-fixture.js';
import { jobTag, summaryReply, waitFor } from './serve-fixture.js';

describe('reviewbot serve in cluster mode: restarts', () => {
  let fx: ClusterFixture;
  /** The server currently running. */
  let server: ServeProcess;
  beforeAll(async () => {
    fx = await createClusterFixture({ persistentRedis: true });
    server = fx.server;
    fx.llm.setScript((request) => summaryReply(`Reviewed job-${jobTag(request) ?? '?'}.`, 1500));
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  const repliesTo = (tag: string) =>
    fx.github.issueComments.filter((c) => c.body?.includes(`Reviewed job-${tag}.`)).length;
  const queued = (pr: number) => fx.store.llen(`reviewbot:queue:github:acme/widgets:${pr}:reviewer`);

  it('a server SIGKILLed with jobs queued is replaced; the new one runs each remaining job once', async () => {
    for (const tag of ['R1', 'S1', 'R2', 'S2', 'R3']) {
      await mention(fx, tag.startsWith('R') ? 7 : 8, `job-${tag} review`);
    }
    // One Job per pull request is running; the other three jobs wait in Redis.
    await fx.k8s.waitForJobs(2, 20_000);
    await waitUntil(async () => (await queued(7)) === 2 && (await queued(8)) === 1, 10_000, 'the queues');
    expect(await server.stop('SIGKILL')).toBeNull();
    // The running pods finish while no server listens; their Jobs must not be created again.
    await waitFor(() => repliesTo('R1') === 1 && repliesTo('S1') === 1, 20_000, 'the running jobs');
    expect(fx.k8s.jobs).toHaveLength(2);

    server = await fx.startReplica();
    const tags = ['R1', 'S1', 'R2', 'S2', 'R3'];
    // The dead server's leases expire (30 s) before the new server takes the keys over.
    await waitFor(() => tags.every((tag) => repliesTo(tag) >= 1), 70_000, 'every reply');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(tags.map(repliesTo)).toEqual([1, 1, 1, 1, 1]);
    expect(fx.k8s.jobs).toHaveLength(5);
    expect([...creationsPerJobId(fx.k8s).values()]).toEqual([1, 1, 1, 1, 1]);
    // The two jobs that were running were found in flight and their Jobs looked up, not re-created.
    const resumed = server.logs.filter((l) => l.msg === 'resuming the wait for an existing Kubernetes Job');
    expect(resumed).toHaveLength(2);
    for (const pr of [7, 8]) {
      const prompts = fx.k8s.jobs.filter((job) => prOf(job) === pr).map(promptOf);
      expect(prompts).toEqual(
        pr === 7 ? ['job-R1 review', 'job-R2 review', 'job-R3 review'] : ['job-S1 review', 'job-S2 review'],
      );
    }
    expect(await queued(7)).toBe(0);
    expect(await queued(8)).toBe(0);
  }, 90_000);

  it('carries on after Redis crashes and restarts mid-run', async () => {
    const before = fx.k8s.jobs.length;
    const runId = /run_id:(\w+)/.exec(await fx.store.info('server'))?.[1];
    for (const tag of ['T1', 'T2', 'T3']) await mention(fx, 7, `job-${tag} review`, server);
    await waitFor(() => fx.llm.requests.some((r) => jobTag(r) === 'T1'), 20_000, 'the first job to run');
    // Redis dies while T1 waits for the model, and is back before T1 finishes (append-only file).
    await fx.redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await fx.redis.restart();
    const restartedAt = Date.now();
    await waitFor(() => ['T1', 'T2', 'T3'].every((tag) => repliesTo(tag) === 1), 40_000, 'every reply');
    expect(/run_id:(\w+)/.exec(await fx.store.info('server'))?.[1]).not.toBe(runId);
    const jobs = fx.k8s.jobs.slice(before);
    expect(jobs.map(promptOf)).toEqual(['job-T1 review', 'job-T2 review', 'job-T3 review']);
    expect(createdAt(fx.k8s, jobs[1]!.metadata!.name!)).toBeGreaterThan(restartedAt);
    const runs = fx.k8s.runs.slice(before);
    await waitFor(() => runs.every((r) => r.endedAt), 10_000, 'the pods to exit');
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0]);
    expect([...creationsPerJobId(fx.k8s).values()].every((n) => n === 1)).toBe(true);
    // The server saw the store go away.
    expect(server.logs.some((l) => l.msg === 'store connection error')).toBe(true);
    expect(await queued(7)).toBe(0);
  }, 60_000);
});
