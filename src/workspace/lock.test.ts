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

describe('tree locks', () => {
  it('makes a directory and one inside it wait for each other, in arrival order', async () => {
    const lock = createWorkspaceLock();
    const events: string[] = [];
    const job = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await sleep(ms);
      events.push(`${name} end`);
    };
    await Promise.all([
      lock('/ws/github/acme/app/pr-7', job('outer', 30)),
      lock('/ws/github/acme/app/pr-7/pr-3', job('inner', 1)),
      lock('/ws/github/acme/app/pr-70', job('sibling', 5)), // a name prefix, not inside: runs at once
    ]);
    expect(events.slice(0, 2)).toEqual(['outer start', 'sibling start']);
    expect(events.indexOf('inner start')).toBeGreaterThan(events.indexOf('outer end'));
  });

  it('tryRun does not run, nor wait, while the directory, one inside it or an ancestor is locked', async () => {
    const lock = createWorkspaceLock();
    let release: () => void = () => undefined;
    const held = lock(
      '/ws/github/acme/app/pr-7/pr-3',
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    expect(lock.isBusy('/ws/github/acme/app/pr-7')).toBe(true);
    expect(lock.isBusy('/ws/github/acme/app/pr-7/pr-3/src')).toBe(true);
    expect(lock.isBusy('/ws/github/acme/app/pr-8')).toBe(false);
    await expect(lock.tryRun('/ws/github/acme/app/pr-7', async () => 'deleted')).resolves.toEqual({
      ran: false,
    });
    await expect(lock.tryRun('/ws/github/acme/app/pr-8', async () => 'deleted')).resolves.toEqual({
      ran: true,
      value: 'deleted',
    });
    release();
    await held;
    expect(lock.isBusy('/ws/github/acme/app/pr-7')).toBe(false);
    await expect(lock.tryRun('/ws/github/acme/app/pr-7', async () => 'deleted')).resolves.toEqual({
      ran: true,
      value: 'deleted',
    });
  });

  it('makes a request after a tryRun wait for it', async () => {
    const lock = createWorkspaceLock();
    const events: string[] = [];
    const cleaning = lock.tryRun('/ws/a/b/pr-1', async () => {
      await sleep(20);
      events.push('removed');
    });
    const job = lock('/ws/a/b/pr-1', async () => {
      events.push('cloned');
    });
    await Promise.all([cleaning, job]);
    expect(events).toEqual(['removed', 'cloned']);
  });
});
