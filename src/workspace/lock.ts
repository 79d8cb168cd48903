/**
 * In-process mutual exclusion per workspace directory: a REVIEWER and a WORKER job on the same pull
 * request must not use the same checkout at once, and the cleaner must not delete a directory while
 * a job uses it or anything inside it (CONTRACT §11). A lock covers its directory's whole tree: two
 * directories conflict when they are equal or one lies inside the other. Waiters run in arrival
 * order (FIFO) among the requests they conflict with.
 */
import path from 'node:path';
import { withFileLock } from './file-lock.js';
import { workspaceLockDir } from './workspace-path.js';

/** What `tryRun` did: ran `fn` (its result), or did not because a conflicting lock was held or awaited. */
export type TryRunResult<T> = { ran: true; value: T } | { ran: false };

/** A set of tree locks over directories. */
export interface WorkspaceLock {
  /** Runs `fn` while holding the lock of `dir`; resolves or rejects with what `fn` does. */
  <T>(dir: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` under the lock of `dir` only if no request on `dir`, a directory inside it or one
   * of its ancestors is held or waiting; otherwise resolves `{ ran: false }` at once. Taking the
   * lock is synchronous, so a request made after this call waits for `fn`.
   */
  tryRun<T>(dir: string, fn: () => Promise<T>): Promise<TryRunResult<T>>;
  /** True while a request on `dir`, inside it or on one of its ancestors is held or waiting. */
  isBusy(dir: string): boolean;
}

/** True when directory `a` equals `b` or one lies inside the other (both absolute and resolved). */
function overlaps(a: string, b: string): boolean {
  const inside = (child: string, parent: string) =>
    child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
  return a === b || inside(a, b) || inside(b, a);
}

interface Entry {
  key: string;
  /** Settles when the holder releases the lock (never rejects). */
  done: Promise<void>;
}

/**
 * Creates an independent set of tree locks. Directories are compared after `path.resolve`, so
 * `a/b` and `a/./b/` share one lock; a lock is released when `fn` settles (also on a throw). A
 * request waits for every earlier request that conflicts with it, so there is no deadlock unless
 * `fn` itself waits for a conflicting lock (use `tryRun` there).
 */
export function createWorkspaceLock(): WorkspaceLock {
  /** Requests held or waiting, in arrival order. */
  const entries = new Set<Entry>();
  const conflicting = (key: string) => [...entries].filter((e) => overlaps(e.key, key));

  function enter(key: string): { entry: Entry; release: () => void } {
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const entry = { key, done };
    entries.add(entry);
    return {
      entry,
      release: () => {
        entries.delete(entry);
        release();
      },
    };
  }

  async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
    const key = path.resolve(dir);
    const earlier = conflicting(key).map((e) => e.done);
    const { release } = enter(key);
    try {
      await Promise.all(earlier);
      return await fn();
    } finally {
      release();
    }
  }

  async function tryRun<T>(dir: string, fn: () => Promise<T>): Promise<TryRunResult<T>> {
    const key = path.resolve(dir);
    if (conflicting(key).length > 0) return { ran: false };
    const { release } = enter(key);
    try {
      return { ran: true, value: await fn() };
    } finally {
      release();
    }
  }

  return Object.assign(withLock, {
    tryRun,
    isBusy: (dir: string) => conflicting(path.resolve(dir)).length > 0,
  });
}

/** The process-wide lock set used by `withWorkspaceLock` and the cleaner. */
export const processWorkspaceLock: WorkspaceLock = createWorkspaceLock();

/**
 * Runs `fn` with the process-wide lock of workspace directory `dir` held (FIFO among conflicting
 * requests; directories outside each other's trees do not wait for each other) and then the
 * cross-process lock directory `<dir>.lock` (`withFileLock`: other processes and pods sharing the
 * base directory wait, a killed holder's lock goes stale and is taken over; CONTRACT §11, §19).
 * Resolves with `fn`'s result; rethrows its error after releasing both locks. Aborting `signal`
 * while waiting for the cross-process lock rejects with GitError.
 */
export function withWorkspaceLock<T>(
  dir: string,
  fn: () => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  return processWorkspaceLock(dir, () =>
    withFileLock(workspaceLockDir(dir), fn, options.signal ? { signal: options.signal } : {}),
  );
}
