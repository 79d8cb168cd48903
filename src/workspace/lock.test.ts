import { describe, expect, it } from 'vitest';
import { createWorkspaceLock, withWorkspaceLock } from './lock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withWorkspaceLock', () => {
  it('runs jobs on the same directory one at a time, in arrival order', async () => {
    const events: string[] = [];
    const job = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await sleep(ms);
      events.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      withWorkspaceLock('/ws/acme/widgets/pr-1', job('reviewer', 40)),
      withWorkspaceLock('/ws/acme/widgets/pr-1/', job('worker', 5)),
      withWorkspaceLock('/ws/acme/widgets/./pr-1', job('third', 1)),
    ]);
    expect(results).toEqual(['reviewer', 'worker', 'third']);
    expect(events).toEqual([
      'reviewer start',
      'reviewer end',
      'worker start',
      'worker end',
      'third start',
      'third end',
    ]);
  });

  it('lets different directories run at the same time', async () => {
    const lock = createWorkspaceLock();
    let running = 0;
    let maxRunning = 0;
    const job = async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await sleep(20);
      running -= 1;
    };
    await Promise.all([lock('/ws/a/b/pr-1', job), lock('/ws/a/b/pr-2', job)]);
    expect(maxRunning).toBe(2);
  });

  it('releases the lock when the job throws', async () => {
    const lock = createWorkspaceLock();
    const failing = lock('/ws/a/b/pr-1', async () => {
      await sleep(5);
      throw new Error('boom');
    });
    const next = lock('/ws/a/b/pr-1', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('keeps separate lock sets independent', async () => {
    const first = createWorkspaceLock();
    const second = createWorkspaceLock();
    let release: () => void = () => undefined;
    const held = first('/ws/x/y/pr-1', () => new Promise<void>((resolve) => (release = resolve)));
    await expect(second('/ws/x/y/pr-1', async () => 'not blocked')).resolves.toBe('not blocked');
    release();
    await held;
  });
});
