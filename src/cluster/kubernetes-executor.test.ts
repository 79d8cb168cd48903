import { describe, expect, it } from 'vitest';
import { rawConfigSchema } from '../config/schema.js';
import { captureLogger, payloadsFor } from './redis/queue.test-helper.js';
import type { KubernetesJobs } from './k8s/client.js';
import { createKubernetesExecutor } from './kubernetes-executor.js';
import type { DoneWatcher } from './redis/done-watcher.js';

const config = rawConfigSchema.parse({
  kubernetes: { image: 'ghcr.io/acme/reviewbot:1', namespace: 'reviewbot' },
  store: { url: 'redis://127.0.0.1:6379/0' },
  agent: { provider: 'anthropic' },
  reviewer: { bot_username: 'review-bot' },
});

/** Jobs whose creations stay pending until `finish(jobId)`; `order` lists creations as they start. */
function pendingJobs() {
  const order: string[] = [];
  const finishers = new Map<string, () => void>();
  const jobs: KubernetesJobs = {
    namespace: 'reviewbot',
    async create(spec) {
      const jobId = spec.metadata?.labels?.['reviewbot/job-id'] ?? '';
      order.push(jobId);
      await new Promise<void>((resolve) => finishers.set(jobId, resolve));
      return { name: `job-${order.length}`, createdAt: new Date() };
    },
    findByJobId: () => Promise.resolve(undefined),
    status: () => Promise.resolve('active'),
    delete: () => Promise.resolve(true),
  };
  return { jobs, order, finish: (jobId: string) => finishers.get(jobId)?.() };
}

/** A watcher whose jobs are all done at once. */
const doneWatcher: DoneWatcher = {
  ready: () => Promise.resolve(),
  wait: () => Promise.resolve({ status: 'succeeded', source: 'signal' }),
  pending: () => 0,
  close: () => Promise.resolve(),
};

describe('createKubernetesExecutor', () => {
  it('bounds the Job creations in flight and creates a hand-over before a waiting first job', async () => {
    const k8s = pendingJobs();
    let clock = 1_000;
    const { logger, lines } = captureLogger();
    const execute = createKubernetesExecutor({
      jobs: k8s.jobs,
      watcher: doneWatcher,
      config,
      env: {},
      logger,
      gate: { concurrency: 1 },
      now: () => clock,
    });
    // #301's Job is being created; #302 was idle; #303's previous Job just ended (a hand-over).
    const [running] = payloadsFor(301, 1);
    const [idleKeyJob] = payloadsFor(302, 1);
    const [, handover] = payloadsFor(303, 2);
    const signal = new AbortController().signal;
    const runs = [
      execute(running!, { signal, resumed: false, handover: false }),
      execute(idleKeyJob!, { signal, resumed: false, handover: false }),
      execute(handover!, { signal, resumed: false, handover: true }),
    ];
    await expect.poll(() => k8s.order.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(k8s.order).toEqual([running!.jobId]);
    clock += 250;
    k8s.finish(running!.jobId);
    await expect.poll(() => k8s.order.length).toBe(2);
    expect(k8s.order[1]).toBe(handover!.jobId);
    k8s.finish(handover!.jobId);
    await expect.poll(() => k8s.order.length).toBe(3);
    k8s.finish(idleKeyJob!.jobId);
    await Promise.all(runs);
    expect(k8s.order).toEqual([running!.jobId, handover!.jobId, idleKeyJob!.jobId]);
    // Each creation's log line says how long the start waited at the gate.
    const waited = new Map(
      lines.filter((line) => line.msg === 'Kubernetes Job created').map((line) => [line.jobId, line.gateMs]),
    );
    expect(waited).toEqual(
      new Map([
        [running!.jobId, 0],
        [handover!.jobId, 250],
        [idleKeyJob!.jobId, 250],
      ]),
    );
  });
});
