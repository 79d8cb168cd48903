/**
 * A lock between processes (and between pods sharing a volume, CONTRACT §19) that a killed holder
 * cannot leave held forever: the lock is a directory made with `mkdir` (atomic, also on NFS),
 * holding an `owner` file (`{"host","pid","token","since"}`); the holder touches the directory's
 * mtime every `heartbeatMs`. A waiter takes the lock over when its mtime is older than `staleMs`
 * (the holder stopped beating: killed, or its node died), or at once when the owner is a process of
 * this host that no longer exists. Takeover renames the stale directory away first (atomic), so
 * two waiters never both remove a fresh lock by accident.
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

/**
 * Removes `lockDir` when it is stale (see the module comment). Returns true when it did (or the
 * lock vanished meanwhile), false when the lock is live.
 */
async function takeOverIfStale(lockDir: string, staleMs: number): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(lockDir)).mtimeMs;
  } catch {
    return true; // released meanwhile
  }
  const owner = await readOwner(lockDir);
  // A lock without an owner file yet is being made right now, unless it is old.
  const stale = Date.now() - mtimeMs > staleMs || deadLocally(owner);
  if (!stale) return false;
  const graveyard = `${lockDir}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockDir, graveyard);
  } catch {
    return true; // another waiter took it over first
  }
  await rm(graveyard, { recursive: true, force: true });
  return true;
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
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const pollMs = options.pollMs ?? 100;
  const owner: Owner = {
    host: hostname(),
    pid: process.pid,
    token: randomBytes(12).toString('hex'),
    since: new Date().toISOString(),
  };
  await mkdir(path.dirname(lockDir), { recursive: true });
  for (;;) {
    if (options.signal?.aborted) throw new GitError(`waiting for the lock ${lockDir} was aborted`);
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!(await takeOverIfStale(lockDir, staleMs))) await sleep(pollMs);
  }
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
