/**
 * Cluster mode when a Job does not finish normally (seed part 3 cluster rule 3, CONTRACT §9): a pod
 * stopped at `active_deadline_seconds` still signals `failed`; a pod killed before it signals is
 * given up once the Kubernetes API reports its Job failed, or, when the API cannot tell, after
 * `active_deadline_seconds` + 10 s. Each time the next queued job of the pull request then runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClusterFixture,
  createdAt,
  jobIdOf,
  mention,
  promptOf,
  type ClusterFixture,
} from './cluster-fixture.js';
import { jobTag, summaryReply, waitFor } from './serve-fixture.js';

/**
 * `kubernetes.active_deadline_seconds` of this file, s: long enough for a pod to reach the model
 * (clone into the object store, rules and learnings, triage: about 2.5 s on an idle 2-core machine,
 * more on a loaded one) before the test kills it.
 */
const DEADLINE_S = 8;

describe('reviewbot serve in cluster mode: Jobs that do not finish', () => {
  let fx: ClusterFixture;
  beforeAll(async () => {
    fx = await createClusterFixture({ env: { K8S_ACTIVE_DEADLINE_SECONDS: String(DEADLINE_S) } });
    // `hang-*` jobs wait for the model far past the deadline; every other job answers at once.
    fx.llm.setScript((request) => {
      const tag = jobTag(request) ?? '?';
      return summaryReply(`Reviewed job-${tag}.`, tag.startsWith('hang') ? 120_000 : 0);
    });
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  /** Queues `job-<hung>` then `job-<next>` on `pr`; resolves once the hung job reached the model. */
  async function queueHungThenNext(pr: number, hung: string, next: string): Promise<void> {
    await mention(fx, pr, `job-${hung} review slowly`);
    await mention(fx, pr, `job-${next} review`);
    await waitFor(() => fx.llm.requests.some((r) => jobTag(r) === hung), 30_000, `the ${hung} request`);
  }

  /** The Jobs of the two prompts, once both exist; and the time between their creations (ms). */
  async function jobsOf(hung: string, next: string) {
    const find = (tag: string) => fx.k8s.jobs.find((job) => promptOf(job).startsWith(`job-${tag} `));
    await waitFor(() => find(hung) && find(next), 40_000, `the Job of job-${next}`);
    const [first, second] = [find(hung)!, find(next)!];
    const gapMs = createdAt(fx.k8s, second.metadata!.name!) - createdAt(fx.k8s, first.metadata!.name!);
    return { first, second, gapMs };
  }

  async function doneRecord(jobId: string): Promise<Record<string, unknown>> {
    return JSON.parse((await fx.store.get(`reviewbot:done:${jobId}`)) ?? '{}') as Record<string, unknown>;
  }

  it('a pod stopped at the active deadline signals failed, and the next job starts at once', async () => {
    await queueHungThenNext(7, 'hangA', 'A2');
    const { first, gapMs } = await jobsOf('hangA', 'A2');
    expect(gapMs).toBeGreaterThanOrEqual(DEADLINE_S * 1000);
    expect(gapMs).toBeLessThan(DEADLINE_S * 1000 + 2500);
    expect(fx.done.find((d) => d.jobId === jobIdOf(first))?.status).toBe('failed');
    expect(await doneRecord(jobIdOf(first))).toMatchObject({ status: 'failed' });
    await waitFor(() => fx.github.issueComments.find((c) => c.body?.includes('Reviewed job-A2.')), 20_000);
    expect(fx.github.issueComments.some((c) => c.body?.includes('Reviewed job-hangA.'))).toBe(false);
    const run = fx.k8s.runs.find((r) => r.jobName === first.metadata?.name);
    expect(run?.exitCode).toBe(1);
    expect(fx.k8s.job(first.metadata!.name!)?.status?.conditions?.map((c) => c.reason)).toContain(
      'DeadlineExceeded',
    );
  }, 60_000);

  it('a pod killed before it signals is given up when the Kubernetes API reports its Job failed', async () => {
    await queueHungThenNext(8, 'hangB', 'B2');
    const hung = fx.k8s.jobs.find((job) => promptOf(job).startsWith('job-hangB '))!;
    const killedAt = Date.now();
    fx.k8s.kill(hung.metadata!.name!, 'SIGKILL');
    const { first, gapMs } = await jobsOf('hangB', 'B2');
    // Found by the server's status poll (every 5 s), well before deadline + 10 s.
    expect(gapMs).toBeLessThan((DEADLINE_S + 10) * 1000 - 2000);
    expect(Date.now() - killedAt).toBeLessThan(7000);
    expect(fx.done.some((d) => d.jobId === jobIdOf(first))).toBe(false);
    expect(await doneRecord(jobIdOf(first))).toMatchObject({ jobId: jobIdOf(first), status: 'failed' });
    await waitFor(() => fx.github.issueComments.find((c) => c.body?.includes('Reviewed job-B2.')), 20_000);
  }, 60_000);

  it('a pod killed before it signals, with the Kubernetes API failing, is given up after deadline + 10 s', async () => {
    await queueHungThenNext(7, 'hangC', 'C2');
    const hung = fx.k8s.jobs.find((job) => promptOf(job).startsWith('job-hangC '))!;
    const name = hung.metadata!.name!;
    // The server's status polls (every 5 s of the wait, before deadline + 10 s) get a server error.
    const polls = Math.ceil(((DEADLINE_S + 10) * 1000) / 5000) - 1;
    for (let i = 0; i < polls; i++)
      fx.k8s.failNext({ verb: 'get', status: 500, message: 'etcd unavailable' });
    fx.k8s.kill(name, 'SIGKILL');
    const { first, gapMs } = await jobsOf('hangC', 'C2');
    // The server starts its clock when it sends the create request, a moment before the fake
    // records the Job: allow that moment.
    expect(gapMs).toBeGreaterThanOrEqual((DEADLINE_S + 10) * 1000 - 300);
    expect(gapMs).toBeLessThan((DEADLINE_S + 10) * 1000 + 3000);
    const seen = fx.k8s.requests.filter((r) => r.method === 'GET' && r.path.includes(`/jobs/${name}`));
    expect(seen.map((r) => r.status)).toEqual(Array.from({ length: polls }, () => 500));
    expect(fx.done.some((d) => d.jobId === jobIdOf(first))).toBe(false);
    expect(await doneRecord(jobIdOf(first))).toMatchObject({ jobId: jobIdOf(first), status: 'failed' });
    await waitFor(() => fx.github.issueComments.find((c) => c.body?.includes('Reviewed job-C2.')), 20_000);
  }, 70_000);
});
