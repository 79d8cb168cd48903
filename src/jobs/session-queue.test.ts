import { describe, expect, it } from 'vitest';
import { createSessionQueue } from './session-queue.js';

interface Job {
  key: string;
  name: string;
}

/** Jobs that run until the test finishes them; records the order of starts and ends. */
function controllableJobs() {
  const events: string[] = [];
  const finishers = new Map<string, (fail?: boolean) => void>();
  const startWaiters = new Map<string, () => void>();
  let active = 0;
  let maxActive = 0;
  const activeByKey = new Map<string, number>();
  let maxPerKey = 0;
  return {
    events,
    get maxActive() {
      return maxActive;
    },
    get maxPerKey() {
      return maxPerKey;
    },
    running: () => [...finishers.keys()],
    process(job: Job): Promise<void> {
      events.push(`start ${job.name}`);
      active += 1;
      maxActive = Math.max(maxActive, active);
      const perKey = (activeByKey.get(job.key) ?? 0) + 1;
      activeByKey.set(job.key, perKey);
      maxPerKey = Math.max(maxPerKey, perKey);
      startWaiters.get(job.name)?.();
      return new Promise<void>((resolve, reject) => {
        finishers.set(job.name, (fail) => {
          finishers.delete(job.name);
          active -= 1;
          activeByKey.set(job.key, (activeByKey.get(job.key) ?? 1) - 1);
          events.push(`end ${job.name}`);
          if (fail) reject(new Error(`${job.name} failed`));
          else resolve();
        });
      });
    },
    /** Resolves once `name` has started. */
    started(name: string): Promise<void> {
      if (events.includes(`start ${name}`)) return Promise.resolve();
      return new Promise((resolve) => startWaiters.set(name, resolve));
    },
    async finish(name: string, fail = false): Promise<void> {
      const finisher = finishers.get(name);
      if (!finisher) throw new Error(`${name} is not running (events: ${events.join(', ')})`);
      finisher(fail);
      // let the consumer pick up the next job
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const job = (key: string, name: string): Job => ({ key, name });

describe('createSessionQueue', () => {
  it('runs one job at a time per key, in order, and removes the queue when drained', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 4, process: (j) => jobs.process(j) });
    for (const name of ['a1', 'a2', 'a3']) queue.enqueue('A', job('A', name));
    expect(queue.keys()).toEqual(['A']);
    expect(queue.depth()).toBe(3);
    await jobs.started('a1');
    expect(jobs.running()).toEqual(['a1']);
    await jobs.finish('a1');
    expect(jobs.running()).toEqual(['a2']);
    expect(queue.depth()).toBe(2);
    await jobs.finish('a2');
    await jobs.finish('a3');
    await queue.idle();
    expect(jobs.events).toEqual(['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3']);
    expect(queue.keys()).toEqual([]);
    expect(queue.depth()).toBe(0);
    expect(jobs.maxPerKey).toBe(1);
  });

  it('runs different keys concurrently and FIFO within each key', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 4, process: (j) => jobs.process(j) });
    for (const n of [1, 2, 3]) {
      queue.enqueue('A', job('A', `a${n}`));
      queue.enqueue('B', job('B', `b${n}`));
    }
    await Promise.all([jobs.started('a1'), jobs.started('b1')]);
    expect(jobs.running().sort()).toEqual(['a1', 'b1']);
    await jobs.finish('b1');
    expect(jobs.running().sort()).toEqual(['a1', 'b2']);
    await jobs.finish('b2');
    await jobs.finish('a1');
    expect(jobs.running().sort()).toEqual(['a2', 'b3']);
    await jobs.finish('a2');
    await jobs.finish('a3');
    await jobs.finish('b3');
    await queue.idle();
    const order = (prefix: string) => jobs.events.filter((e) => e.startsWith(`start ${prefix}`));
    expect(order('a')).toEqual(['start a1', 'start a2', 'start a3']);
    expect(order('b')).toEqual(['start b1', 'start b2', 'start b3']);
    expect(jobs.maxActive).toBe(2);
    expect(jobs.maxPerKey).toBe(1);
    expect(queue.keys()).toEqual([]);
  });

  it('caps jobs running across keys and hands free slots out in request order', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 2, process: (j) => jobs.process(j) });
    queue.enqueue('A', job('A', 'a1'));
    queue.enqueue('A', job('A', 'a2'));
    queue.enqueue('B', job('B', 'b1'));
    queue.enqueue('C', job('C', 'c1'));
    queue.enqueue('D', job('D', 'd1'));
    await Promise.all([jobs.started('a1'), jobs.started('b1')]);
    expect(jobs.running().sort()).toEqual(['a1', 'b1']);
    expect(queue.depth()).toBe(5);
    // a1's slot goes to C (waiting since enqueue), not to a2 (which asked after a1 finished).
    await jobs.finish('a1');
    expect(jobs.running().sort()).toEqual(['b1', 'c1']);
    await jobs.finish('b1');
    expect(jobs.running().sort()).toEqual(['c1', 'd1']);
    await jobs.finish('c1');
    expect(jobs.running().sort()).toEqual(['a2', 'd1']);
    await jobs.finish('a2');
    await jobs.finish('d1');
    await queue.idle();
    expect(jobs.maxActive).toBe(2);
    expect(queue.keys()).toEqual([]);
  });

  it('moves on after a failing job and reports the error', async () => {
    const jobs = controllableJobs();
    const errors: string[] = [];
    const queue = createSessionQueue<Job>({
      maxConcurrent: 1,
      process: (j) => jobs.process(j),
      onError: (error, item) => errors.push(`${item.name}: ${(error as Error).message}`),
    });
    queue.enqueue('A', job('A', 'a1'));
    queue.enqueue('A', job('A', 'a2'));
    await jobs.started('a1');
    await jobs.finish('a1', true);
    await jobs.finish('a2');
    await queue.idle();
    expect(errors).toEqual(['a1: a1 failed']);
    expect(jobs.events).toEqual(['start a1', 'end a1', 'start a2', 'end a2']);
  });

  it('waits for `before` without holding a slot, and ignores its rejection', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 1, process: (j) => jobs.process(j) });
    let release: () => void = () => undefined;
    const slowReaction = new Promise<void>((resolve) => {
      release = resolve;
    });
    queue.enqueue('A', job('A', 'a1'), slowReaction);
    queue.enqueue('A', job('A', 'a2'));
    queue.enqueue('B', job('B', 'b1'), Promise.reject(new Error('reaction failed')));
    // B's job runs while A's first job still waits for its reaction; A's second job waits behind it.
    await jobs.started('b1');
    expect(jobs.running()).toEqual(['b1']);
    await jobs.finish('b1');
    expect(jobs.running()).toEqual([]);
    release();
    await jobs.started('a1');
    await jobs.finish('a1');
    await jobs.finish('a2');
    await queue.idle();
    expect(jobs.events.filter((e) => e.startsWith('start'))).toEqual(['start b1', 'start a1', 'start a2']);
  });

  it('reports the depth as it changes', async () => {
    const jobs = controllableJobs();
    const depths: number[] = [];
    const queue = createSessionQueue<Job>({
      maxConcurrent: 1,
      process: (j) => jobs.process(j),
      onDepthChange: (d) => depths.push(d),
    });
    queue.enqueue('A', job('A', 'a1'));
    queue.enqueue('B', job('B', 'b1'));
    await jobs.started('a1');
    await jobs.finish('a1');
    await jobs.finish('b1');
    await queue.idle();
    expect(depths).toEqual([1, 2, 1, 0]);
  });

  it('shutdown drops queued jobs, waits for running ones, and refuses new ones', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 1, process: (j) => jobs.process(j) });
    queue.enqueue('A', job('A', 'a1'));
    queue.enqueue('A', job('A', 'a2'));
    queue.enqueue('B', job('B', 'b1'));
    await jobs.started('a1');
    const stopping = queue.shutdown(5_000);
    expect(queue.enqueue('C', job('C', 'c1'))).toBe(false);
    await jobs.finish('a1');
    const dropped = await stopping;
    expect(dropped.map((j) => j.name).sort()).toEqual(['a2', 'b1']);
    expect(jobs.events).toEqual(['start a1', 'end a1']);
    expect(queue.keys()).toEqual([]);
  });

  it('shutdown gives up on running jobs after the time limit and returns them too', async () => {
    const jobs = controllableJobs();
    const queue = createSessionQueue<Job>({ maxConcurrent: 2, process: (j) => jobs.process(j) });
    queue.enqueue('A', job('A', 'a1'));
    queue.enqueue('B', job('B', 'b1'));
    await Promise.all([jobs.started('a1'), jobs.started('b1')]);
    const stopping = queue.shutdown(50);
    await jobs.finish('b1');
    const started = Date.now();
    const dropped = await stopping;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(dropped.map((j) => j.name)).toEqual(['a1']);
    await jobs.finish('a1');
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxConcurrent %s', (max) => {
    expect(() => createSessionQueue({ maxConcurrent: max, process: async () => undefined })).toThrow(
      RangeError,
    );
  });
});
