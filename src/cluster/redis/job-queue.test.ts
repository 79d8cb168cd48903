import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestRedis } from './redis.test-helper.js';
import { silentLogger } from '../../logger.js';
import {
  captureLogger,
  createRecorder,
  keyOf,
  overlapsWithinKey,
  payloadsFor,
  queueFactory,
  type Span,
} from './queue.test-helper.js';

const db = useTestRedis();
let queues: ReturnType<typeof queueFactory>;

beforeAll(() => {
  queues = queueFactory(db.server.url);
});

afterEach(async () => {
  await queues.closeAll();
});

const logger = silentLogger();
const jobIdsOf = (spans: Span[], key: string) =>
  spans
    .filter((span) => span.key === key)
    .sort((a, b) => a.start - b.start)
    .map((span) => span.jobId);
const finishedCount = (spans: Span[]) => spans.filter((span) => span.end !== undefined).length;

describe('createRedisJobQueue', () => {
  it('runs the jobs of one key one at a time in order, and different keys at once', async () => {
    const recorder = createRecorder();
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 30),
      logger,
      leaseMs: 500,
    });
    await queue.start();
    const a = payloadsFor(101, 5);
    const b = payloadsFor(102, 5);
    for (const [index, payload] of a.entries()) {
      queue.submit(payload);
      queue.submit(b[index]!);
    }
    await expect.poll(() => finishedCount(recorder.spans), { timeout: 10_000 }).toBe(10);

    expect(jobIdsOf(recorder.spans, keyOf(101))).toEqual(a.map((p) => p.jobId));
    expect(jobIdsOf(recorder.spans, keyOf(102))).toEqual(b.map((p) => p.jobId));
    expect(overlapsWithinKey(recorder.spans)).toEqual([]);
    const acrossKeys = recorder.spans.some((x) =>
      recorder.spans.some((y) => x.key !== y.key && x.start < (y.end ?? 0) && y.start < (x.end ?? 0)),
    );
    expect(acrossKeys).toBe(true);
    expect(recorder.spans.every((span) => !span.resumed && !span.aborted)).toBe(true);
    // The first job of each key starts an idle key; the others are hand-overs.
    const firsts = new Set([a[0]!.jobId, b[0]!.jobId]);
    expect(recorder.spans.map((span) => span.handover)).toEqual(
      recorder.spans.map((span) => !firsts.has(span.jobId)),
    );
    await expect.poll(() => queue.depth()).toBe(0);
    expect(
      await db.redis.exists(
        `reviewbot:queue:${keyOf(101)}`,
        `reviewbot:lease:${keyOf(101)}`,
        `reviewbot:active:${keyOf(101)}`,
      ),
    ).toBe(0);
  });

  it('keeps pending jobs as JobPayload JSON in the contract list, and counts them in the depth', async () => {
    const recorder = createRecorder();
    const depths: number[] = [];
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 'block'),
      logger,
      metrics: { queueDepth: (n) => depths.push(n) },
    });
    const jobs = payloadsFor(103, 3);
    for (const payload of jobs) queue.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(1);
    await expect.poll(() => db.redis.llen(`reviewbot:queue:${keyOf(103)}`)).toBe(2);

    const pending = await db.redis.lrange('reviewbot:queue:github:acme/widgets:103:reviewer', 0, -1);
    expect(pending.map((text) => JSON.parse(text) as unknown)).toEqual(jobs.slice(1));
    expect(queue.depth()).toBe(3);
    expect(depths.at(-1)).toBe(3);
  });

  it('never runs two jobs of one key at once across two replicas, each job exactly once', async () => {
    const recorder = createRecorder();
    const jitter = () => 5 + Math.floor(Math.random() * 20);
    const options = { logger, leaseMs: 2000, sweepIntervalMs: 20 };
    const first = queues.create({ ...options, ownerId: 'r1', execute: recorder.execute('r1', jitter) });
    const second = queues.create({ ...options, ownerId: 'r2', execute: recorder.execute('r2', jitter) });
    await Promise.all([first.start(), second.start()]);
    const prs = [201, 202, 203, 204];
    const rounds = 8;
    const jobs = new Map(prs.map((pr) => [pr, payloadsFor(pr, rounds)]));
    const byReplica = new Map<string, string[]>([
      ['r1', []],
      ['r2', []],
    ]);
    for (let round = 0; round < rounds; round += 1) {
      for (const [offset, pr] of prs.entries()) {
        const payload = jobs.get(pr)![round]!;
        const [name, queue] =
          (round + offset) % 2 === 0 ? (['r1', first] as const) : (['r2', second] as const);
        queue.submit(payload);
        byReplica.get(name)!.push(payload.jobId);
      }
      // Sometimes let every key drain, so the next round's keys are taken afresh by either replica.
      if (round % 2 === 1)
        await expect.poll(() => finishedCount(recorder.spans)).toBe((round + 1) * prs.length);
      else await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20)));
    }
    await expect.poll(() => finishedCount(recorder.spans), { timeout: 15_000 }).toBe(rounds * prs.length);

    expect(overlapsWithinKey(recorder.spans)).toEqual([]);
    const ran = recorder.spans.map((span) => span.jobId).sort();
    expect(ran).toEqual(
      [...jobs.values()]
        .flat()
        .map((p) => p.jobId)
        .sort(),
    );
    for (const pr of prs) {
      // Jobs one replica submitted to a key run in the order it submitted them.
      const order = jobIdsOf(recorder.spans, keyOf(pr));
      for (const submitted of byReplica.values()) {
        const mine = order.filter((id) => submitted.includes(id));
        expect(mine).toEqual(submitted.filter((id) => order.includes(id)));
      }
    }
    expect(new Set(recorder.spans.map((span) => span.owner)).size).toBe(2);
  });

  it('shutdown lets the running job finish within the bound and leaves the rest in the store', async () => {
    const recorder = createRecorder();
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 150),
      logger,
      leaseMs: 10_000,
    });
    const jobs = payloadsFor(301, 3);
    for (const payload of jobs) queue.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(1);

    await expect(queue.shutdown(5000)).resolves.toEqual([]);
    expect(recorder.finished(jobs[0]!.jobId)).toHaveLength(1);
    expect(recorder.spans).toHaveLength(1);
    expect(await db.redis.lrange(`reviewbot:queue:${keyOf(301)}`, 0, -1)).toHaveLength(2);
    expect(await db.redis.exists(`reviewbot:lease:${keyOf(301)}`)).toBe(0);

    // A new server (same store) resumes the rest at once: the lease was released.
    const next = queues.create({
      ownerId: 'r2',
      execute: recorder.execute('r2', () => 10),
      logger,
      leaseMs: 10_000,
    });
    const started = Date.now();
    await next.start();
    await expect.poll(() => finishedCount(recorder.spans)).toBe(3);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(recorder.spans.map((span) => [span.owner, span.jobId])).toEqual([
      ['r1', jobs[0]!.jobId],
      ['r2', jobs[1]!.jobId],
      ['r2', jobs[2]!.jobId],
    ]);
  });

  it('shutdown past its bound aborts the running job, keeps it and releases the lease for the next owner', async () => {
    const recorder = createRecorder();
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 'block'),
      logger,
      leaseMs: 10_000,
    });
    const jobs = payloadsFor(302, 2);
    for (const payload of jobs) queue.submit(payload);
    await expect.poll(() => recorder.spans.length).toBe(1);

    const before = Date.now();
    await expect(queue.shutdown(100)).resolves.toEqual([]);
    expect(Date.now() - before).toBeLessThan(2000);
    expect(recorder.spans[0]?.aborted).toBe(true);

    const next = queues.create({
      ownerId: 'r2',
      execute: recorder.execute('r2', () => 10),
      logger,
      leaseMs: 10_000,
    });
    await next.start();
    await expect.poll(() => recorder.finished(jobs[1]!.jobId).length).toBe(1);
    const resumed = recorder.runs(jobs[0]!.jobId);
    expect(resumed.map((span) => [span.owner, span.resumed])).toEqual([
      ['r1', false],
      ['r2', true],
    ]);
    expect(recorder.finished(jobs[0]!.jobId)).toHaveLength(1);
  });

  it('refuses a submit after shutdown (so the webhook is not acknowledged), queuing nothing', async () => {
    const { logger: capturing, lines } = captureLogger();
    const recorder = createRecorder();
    const queue = queues.create({ ownerId: 'r1', execute: recorder.execute('r1'), logger: capturing });
    await queue.shutdown(0);
    const [payload] = payloadsFor(303, 1);
    await expect(queue.submit(payload!)).rejects.toThrow(/closed/);
    expect(lines.some((line) => line.jobId === payload!.jobId && /not taken/.test(String(line.msg)))).toBe(
      true,
    );
    expect(await db.redis.llen(`reviewbot:queue:${keyOf(303)}`)).toBe(0);
  });

  it('queues a job id once even when it is submitted twice', async () => {
    const recorder = createRecorder();
    const queue = queues.create({ ownerId: 'r1', execute: recorder.execute('r1', () => 10), logger });
    const [payload, after] = payloadsFor(304, 2);
    queue.submit(payload!);
    queue.submit(payload!);
    queue.submit(after!);
    await expect.poll(() => recorder.finished(after!.jobId).length).toBe(1);
    expect(recorder.runs(payload!.jobId)).toHaveLength(1);
  });

  it('moves on after a failing execute, without running it again', async () => {
    const { logger: capturing, lines } = captureLogger();
    const ran: string[] = [];
    const [bad, good] = payloadsFor(305, 2);
    const queue = queues.create({
      ownerId: 'r1',
      logger: capturing,
      execute: async (payload) => {
        ran.push(payload.jobId);
        if (payload.jobId === bad!.jobId) throw new Error('kubernetes API unavailable');
      },
    });
    queue.submit(bad!);
    queue.submit(good!);
    await expect.poll(() => ran).toEqual([bad!.jobId, good!.jobId]);
    expect(lines.some((line) => line.jobId === bad!.jobId && line.err === 'kubernetes API unavailable')).toBe(
      true,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ran).toHaveLength(2);
  });

  it('start() finds jobs pushed straight onto a contract list, skipping a malformed entry', async () => {
    const { logger: capturing, lines } = captureLogger();
    const recorder = createRecorder();
    const [first, second] = payloadsFor(306, 2);
    const list = `reviewbot:queue:${keyOf(306)}`;
    await db.redis.rpush(list, JSON.stringify(first), '{"not":"a payload"}', JSON.stringify(second));
    const queue = queues.create({
      ownerId: 'r1',
      execute: recorder.execute('r1', () => 5),
      logger: capturing,
    });
    await queue.start();
    await expect.poll(() => finishedCount(recorder.spans)).toBe(2);
    expect(recorder.spans.map((span) => span.jobId)).toEqual([first!.jobId, second!.jobId]);
    expect(lines.some((line) => /malformed/.test(String(line.msg)))).toBe(true);
    expect(await db.redis.exists(list)).toBe(0);
  });

  it.each([
    ['an empty owner id', { ownerId: '' }],
    ['a lease under 100 ms', { leaseMs: 50 }],
    ['a fractional sweep interval', { sweepIntervalMs: 2.5 }],
  ])('rejects %s', (_name, override) => {
    expect(() =>
      queues.create({ ownerId: 'r1', execute: async () => undefined, logger, ...override }),
    ).toThrow(RangeError);
  });
});
