/**
 * A lock between processes (and between pods sharing a volume, CONTRACT §19) that a killed holder
 * cannot leave held forever: the lock is a directory made with `mkdir` (atomic, also on NFS),
 * holding an `owner` file (`{"host","pid","token","since"}`); the holder touches the directory's
 * mtime every `heartbeatMs`. A waiter takes the lock over when its mtime is older than `staleMs`
 * (the holder stopped beating: killed, or its node died), or at once when the owner is a process of
 * this host that no longer exists. Waiters take a stale lock over one at a time (a takeover mutex
 * beside the lock), so two waiters never both hold it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { GitError } from '../errors.js';

/** Timing of `withFileLock`, ms. */
export interface FileLockOptions {
  /** A lock whose directory mtime is older than this is stale (default 60,000). */
  staleMs?: number;
  /** How often the holder touches the lock (default 10,000; keep well below `staleMs`). */
  heartbeatMs?: number;
  /** Poll interval while waiting (default 100). */
  pollMs?: number;
  /** Aborting stops waiting and rejects with a GitError. */
  signal?: AbortSignal;
}

interface Owner {
  host: string;
  pid: number;
  token: string;
  since: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True when `owner` is a process of this host that has exited (signal 0 answers ESRCH). */
function deadLocally(owner: Owner | undefined): boolean {
  if (!owner || owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function readOwner(lockDir: string): Promise<Owner | undefined> {
  try {
    return JSON.parse(await readFile(path.join(lockDir, 'owner'), 'utf8')) as Owner;
  } catch {
    return undefined;
  }
}

/** How `lockDir` looks now: its mtime and owner, or undefined when it is gone. */
async function look(lockDir: string): Promise<{ mtimeMs: number; owner: Owner | undefined } | undefined> {
  try {
    const { mtimeMs } = await stat(lockDir);
    return { mtimeMs, owner: await readOwner(lockDir) };
  } catch {
    return undefined;
  }
}

/**
 * Removes `lockDir` when it is stale (see the module comment). Returns true when it did (or the
 * lock vanished meanwhile), false when the lock is live or another waiter is taking it over.
 *
 * Waiters take a stale lock over one at a time, holding the takeover mutex `<lockDir>.takeover`
 * (made with `mkdir`, atomic): the one holding it looks at the lock again and removes it only if it
 * is still the stale one. Without the mutex, a waiter that judged the old lock stale could remove
 * the fresh lock another waiter had just made, and both would hold it. A mutex left by a waiter
 * killed in the middle (milliseconds of work) is removed when older than `staleMs`.
 */
async function takeOverIfStale(lockDir: string, staleMs: number): Promise<boolean> {
  const isStale = (seen: { mtimeMs: number; owner: Owner | undefined }) =>
    Date.now() - seen.mtimeMs > staleMs || deadLocally(seen.owner);
  const first = await look(lockDir);
  if (!first) return true; // released meanwhile
  // A lock without an owner file yet is being made right now, unless it is old.
  if (!isStale(first)) return false;
  const mutex = `${lockDir}.takeover`;
  try {
    await mkdir(mutex);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await stat(mutex).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
    if (since !== undefined && Date.now() - since > staleMs)
      await rm(mutex, { recursive: true, force: true });
    return false;
  }
  try {
    const now = await look(lockDir);
    if (!now) return true;
    if (!isStale(now)) return false;
    const graveyard = `${lockDir}.stale-${randomBytes(6).toString('hex')}`;
    await rename(lockDir, graveyard);
    await rm(graveyard, { recursive: true, force: true });
    return true;
  } finally {
    await rm(mutex, { recursive: true, force: true });
  }
}

function newOwner(): Owner {
  return {
    host: hostname(),
    pid: process.pid,
    token: randomBytes(12).toString('hex'),
    since: new Date().toISOString(),
  };
}

/** Makes `lockDir`; false when it exists already. */
async function tryMake(lockDir: string): Promise<boolean> {
  try {
    await mkdir(lockDir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
}

/** Runs `fn` with `lockDir` just made by us: writes the owner, beats, releases when `fn` settles. */
async function hold<T>(lockDir: string, owner: Owner, heartbeatMs: number, fn: () => Promise<T>): Promise<T> {
  await writeFile(path.join(lockDir, 'owner'), JSON.stringify(owner));
  const beat = setInterval(() => {
    const now = new Date();
    utimes(lockDir, now, now).catch(() => undefined);
  }, heartbeatMs);
  beat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    // Remove it only while it is still ours (a stalled holder may have been taken over).
    if ((await readOwner(lockDir))?.token === owner.token) {
      await rm(lockDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/**
 * Runs `fn` while holding the lock directory `lockDir` (its parent is created when missing).
 * Waits (polling) while another live holder has it; takes a stale lock over. The lock is released
 * when `fn` settles. Rejects with GitError when `signal` aborts the wait.
 */
export async function withFileLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 60_000;
  const pollMs = options.pollMs ?? 100;
  const owner = newOwner();
  await mkdir(path.dirname(lockDir), { recursive: true });
  for (;;) {
    if (options.signal?.aborted) throw new GitError(`waiting for the lock ${lockDir} was aborted`);
    if (await tryMake(lockDir)) break;
    if (!(await takeOverIfStale(lockDir, staleMs))) await sleep(pollMs);
  }
  return hold(lockDir, owner, options.heartbeatMs ?? 10_000, fn);
}

/** What `tryWithFileLock` did: ran `fn` (its result), or did not because a live holder has the lock. */
export type TryFileLockResult<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs `fn` holding the lock directory `lockDir` only when it can be had without waiting: free, or
 * held by a stale holder (taken over, see the module comment); resolves `{ ran: false }` at once
 * when a live holder (or a waiter taking a stale lock over) has it. The parent directory must
 * exist (a missing parent rejects with ENOENT). Released when `fn` settles; rejects with what `fn`
 * does.
 */
export async function tryWithFileLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  options: Pick<FileLockOptions, 'staleMs' | 'heartbeatMs'> = {},
): Promise<TryFileLockResult<T>> {
  const owner = newOwner();
  let made = await tryMake(lockDir);
  if (!made && (await takeOverIfStale(lockDir, options.staleMs ?? 60_000))) made = await tryMake(lockDir);
  if (!made) return { ran: false };
  return { ran: true, value: await hold(lockDir, owner, options.heartbeatMs ?? 10_000, fn) };
}
