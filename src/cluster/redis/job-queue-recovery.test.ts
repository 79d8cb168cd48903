import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestRedis } from './redis.test-helper.js';
import { silentLogger } from '../../logger.js';
import { createDoneWatcher, publishDone, type DoneOutcome } from './done-signal.js';
import {
  captureLogger,
  createRecorder,
  keyOf,
  overlapsWithinKey,
  payloadsFor,
  queueFactory,
  type Span,
} from './queue.test-helper.js';

const db = useTestRedis({ persistent: true });
let queues: ReturnType<typeof queueFactory>;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(() => {
  queues = queueFactory(db.server.url);
});

afterEach(async () => {
  await queues.closeAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const logger = silentLogger();
const LEASE_MS = 500;

describe('createRedisJobQueue recovery', () => {
  it('a replica that dies mid-job: another resumes after the lease expires, in-flight job once more, the rest once', async () => {
    const recorder = createRecorder();
    const jobs = payloadsFor(401, 3);
    const first = jobs[0]!.jobId;
    const dying = queues.create({
      ownerId: 'dying',
      execute: recorder.execute('dying', (p) => (p.jobId === first ? 'block' : 10)),
      logger,
      leaseMs: LEASE_MS,
      sweepIntervalMs: 50,
    });
    await dying.start();
    for (const payload of jobs) dying.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(1);
    // The second replica starts once the first runs the key's first job.
    const survivor = queues.create({
      ownerId: 'survivor',
      execute: recorder.execute('survivor', () => 10),
      logger,
      leaseMs: LEASE_MS,
      sweepIntervalMs: 50,
    });
    await survivor.start();
    // While the lease is renewed, the survivor's sweeps leave the key alone.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
    expect(recorder.spans).toHaveLength(1);

    const leaseLeft = await db.redis.pttl(`reviewbot:lease:${keyOf(401)}`);
    expect(await db.redis.get(`reviewbot:lease:${keyOf(401)}`)).toBe('dying');
    const crashedAt = Date.now();
    dying.crash();
    await expect.poll(() => recorder.finished(jobs[2]!.jobId).length, { timeout: 5000 }).toBe(1);

    const again = recorder.runs(first).find((span) => span.owner === 'survivor');
    expect(again?.resumed).toBe(true);
    // Not before the dead owner's lease ran out.
    expect(again!.start - crashedAt).toBeGreaterThanOrEqual(leaseLeft - 20);
    expect(recorder.runs(first)).toHaveLength(2);
    expect(recorder.runs(jobs[1]!.jobId).map((span) => span.owner)).toEqual(['survivor']);
    expect(recorder.runs(jobs[2]!.jobId).map((span) => span.owner)).toEqual(['survivor']);
    const survivorOrder = recorder.spans
      .filter((span) => span.owner === 'survivor')
      .map((span) => span.jobId);
    expect(survivorOrder).toEqual(jobs.map((p) => p.jobId));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(recorder.spans).toHaveLength(4);
  });

  it('start() of a restarted server resumes every key with jobs left by a killed one', async () => {
    const recorder = createRecorder();
    const a = payloadsFor(402, 3);
    const b = payloadsFor(403, 2);
    const killed = queues.create({
      ownerId: 'killed',
      execute: recorder.execute('killed', () => 'block'),
      logger,
      leaseMs: LEASE_MS,
    });
    for (const payload of [...a, ...b]) killed.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(2);
    killed.crash();

    const restarted = queues.create({
      ownerId: 'restarted',
      execute: recorder.execute('restarted', () => 10),
      logger,
      leaseMs: LEASE_MS,
      sweepIntervalMs: 50,
    });
    await restarted.start();
    await expect
      .poll(() => recorder.spans.filter((s) => s.owner === 'restarted' && s.end).length, { timeout: 5000 })
      .toBe(5);

    for (const jobs of [a, b]) {
      const order = recorder.spans.filter(
        (s) => s.owner === 'restarted' && s.key === keyOf(jobs[0]!.comment.prNumber),
      );
      expect(order.map((s) => s.jobId)).toEqual(jobs.map((p) => p.jobId));
      expect(order.map((s) => s.resumed)).toEqual(jobs.map((_, index) => index === 0));
    }
    expect(await db.redis.scard('reviewbot:queue-keys')).toBe(0);
  });

  it('a replica whose lease is lost stops taking jobs for that key', async () => {
    const { logger: capturing, lines } = captureLogger();
    const recorder = createRecorder();
    const jobs = payloadsFor(404, 2);
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 'block'),
      logger: capturing,
      leaseMs: LEASE_MS,
      sweepIntervalMs: 50,
    });
    await queue.start();
    for (const payload of jobs) queue.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(1);

    await db.redis.set(`reviewbot:lease:${keyOf(404)}`, 'intruder', 'PX', 1500);
    await expect.poll(() => recorder.spans[0]?.aborted).toBe(true);
    const lost = lines.find((line) => /lease lost/.test(String(line.msg)));
    expect(lost).toMatchObject({ jobId: jobs[0]!.jobId, reason: 'lease held by another owner or expired' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(recorder.spans).toHaveLength(1);
    expect(await db.redis.lrange(`reviewbot:active:${keyOf(404)}`, 0, -1)).toEqual([JSON.stringify(jobs[0])]);

    // When the intruder's lease expires, the sweep takes the key back and resumes the in-flight job.
    await expect.poll(() => recorder.spans.length, { timeout: 5000 }).toBe(2);
    expect(recorder.spans[1]).toMatchObject({ jobId: jobs[0]!.jobId, resumed: true });
  });

  it('the store restarting mid-run: the queue and the done watcher reconnect and every job completes once', async () => {
    const subscriber = db.connect();
    const commands = db.connect();
    const pod = db.connect();
    const watcher = createDoneWatcher(subscriber, commands, { recheckIntervalMs: 200 });
    cleanups.push(async () => {
      await watcher.close();
      for (const connection of [subscriber, commands, pod]) connection.disconnect();
    });
    await watcher.ready();
    const outcomes = new Map<string, DoneOutcome[]>();
    const started: string[] = [];
    const spans: Span[] = [];
    const queue = queues.create({
      ownerId: 'r1',
      logger,
      leaseMs: 5000,
      sweepIntervalMs: 100,
      // The cluster flow in miniature: a "Job pod" publishes completion, the server waits for it.
      async execute(payload, { signal, handover }) {
        started.push(payload.jobId);
        const key = keyOf(payload.comment.prNumber);
        const span: Span = {
          owner: 'r1',
          jobId: payload.jobId,
          key,
          resumed: false,
          handover,
          start: Date.now(),
        };
        spans.push(span);
        const done = watcher.wait(payload.jobId, { deadlineAt: Date.now() + 20_000, signal });
        setTimeout(
          () => void publishDone(pod, { jobId: payload.jobId, status: 'succeeded' }).catch(() => undefined),
          40,
        );
        const outcome = await done;
        span.end = Date.now();
        outcomes.set(payload.jobId, [...(outcomes.get(payload.jobId) ?? []), outcome]);
      },
    });
    await queue.start();
    const a = payloadsFor(405, 6);
    const b = payloadsFor(406, 6);
    for (const payload of [...a.slice(0, 4), ...b.slice(0, 4)]) queue.submit(payload);
    await expect.poll(() => outcomes.size).toBeGreaterThanOrEqual(2);

    await db.server.kill();
    for (const payload of [...a.slice(4), ...b.slice(4)]) queue.submit(payload); // while the store is down
    await new Promise((resolve) => setTimeout(resolve, 200));
    await db.server.restart();

    await expect.poll(() => outcomes.size, { timeout: 15_000 }).toBe(12);
    for (const payload of [...a, ...b]) {
      expect(outcomes.get(payload.jobId)).toEqual([
        { status: 'succeeded', source: expect.stringMatching(/^(signal|key)$/) },
      ]);
    }
    expect(started.filter((id) => a.some((p) => p.jobId === id))).toEqual(a.map((p) => p.jobId));
    expect(started.filter((id) => b.some((p) => p.jobId === id))).toEqual(b.map((p) => p.jobId));
    expect(started).toHaveLength(12);
    expect(overlapsWithinKey(spans)).toEqual([]);
  });
});
