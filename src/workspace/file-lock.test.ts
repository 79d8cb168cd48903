/** The cross-process store lock (CONTRACT §19): exclusion, and takeover of a lock a killed holder left. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryWithFileLock, withFileLock } from './file-lock.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'reviewbot-file-lock-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('withFileLock', () => {
  it('lets one holder in at a time and removes the lock after', async () => {
    const lock = path.join(root, 'sub', 'lock');
    const events: string[] = [];
    const hold = (name: string) =>
      withFileLock(
        lock,
        async () => {
          events.push(`${name} in`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          events.push(`${name} out`);
        },
        { pollMs: 5 },
      );
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    for (let i = 0; i < events.length; i += 2) expect(events[i + 1]).toBe(events[i]!.replace('in', 'out'));
    await expect(mkdir(lock)).resolves.toBeUndefined();
  });

  it('takes over a lock whose holder stopped beating (another host)', async () => {
    const lock = path.join(root, 'lock');
    await mkdir(lock);
    await writeFile(
      path.join(lock, 'owner'),
      JSON.stringify({ host: 'pod-gone', pid: 1, token: 't', since: '' }),
    );
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    await expect(withFileLock(lock, () => Promise.resolve('got it'), { staleMs: 60_000 })).resolves.toBe(
      'got it',
    );
  });

  it('waits for a live holder of another host', async () => {
    const lock = path.join(root, 'lock');
    await mkdir(lock);
    await writeFile(
      path.join(lock, 'owner'),
      JSON.stringify({ host: 'pod-alive', pid: 1, token: 't', since: '' }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(
      withFileLock(lock, () => Promise.resolve('never'), { pollMs: 10, signal: controller.signal }),
    ).rejects.toThrow(/aborted/);
  });

  it('lets exactly one of many waiters take over a stale lock', async () => {
    // Each waiter judges the lock stale, then renames it away: a late one must not rename away the
    // fresh lock an earlier one has just made (two holders).
    let active = 0;
    let most = 0;
    for (let round = 0; round < 60; round++) {
      const lock = path.join(root, `lock-${round}`);
      await mkdir(lock);
      await writeFile(
        path.join(lock, 'owner'),
        JSON.stringify({ host: 'pod-gone', pid: 1, token: 't', since: '' }),
      );
      const old = new Date(Date.now() - 120_000);
      await utimes(lock, old, old);
      const waiter = () =>
        withFileLock(
          lock,
          async () => {
            most = Math.max(most, ++active);
            await new Promise((resolve) => setTimeout(resolve, 5));
            active--;
          },
          { staleMs: 60_000, pollMs: 1 },
        );
      await Promise.all([waiter(), waiter(), waiter(), waiter(), waiter()]);
    }
    expect(most).toBe(1);
  });
});

describe('tryWithFileLock', () => {
  it('runs at once when free, says busy without waiting for a live holder, takes a stale lock over', async () => {
    const lock = path.join(root, 'lock');
    await expect(tryWithFileLock(lock, () => Promise.resolve(1))).resolves.toEqual({ ran: true, value: 1 });
    await expect(mkdir(lock)).resolves.toBeUndefined(); // released
    await writeFile(
      path.join(lock, 'owner'),
      JSON.stringify({ host: 'pod-b', pid: 1, token: 't', since: '' }),
    );
    let ran = false;
    const started = Date.now();
    await expect(tryWithFileLock(lock, async () => void (ran = true))).resolves.toEqual({ ran: false });
    expect(ran).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old); // pod-b stopped beating
    await expect(tryWithFileLock(lock, () => Promise.resolve(2))).resolves.toEqual({ ran: true, value: 2 });
  });
});
