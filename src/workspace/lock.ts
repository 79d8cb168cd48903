/**
 * In-process mutual exclusion per workspace directory: a REVIEWER and a WORKER job on the same pull
 * request must not use the same checkout at once. Waiters run in arrival order (FIFO).
 */
import path from 'node:path';

/** Runs `fn` while holding the lock of `dir`; resolves or rejects with what `fn` does. */
export type WorkspaceLock = <T>(dir: string, fn: () => Promise<T>) => Promise<T>;

/**
 * Creates an independent set of per-directory locks. Directories are compared after
 * `path.resolve`, so `a/b` and `a/./b/` share one lock; a lock is released when `fn` settles
 * (also on a throw), and its entry is dropped once nobody waits for it.
 */
export function createWorkspaceLock(): WorkspaceLock {
  const tails = new Map<string, Promise<void>>();
  return async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
    const key = path.resolve(dir);
    const previous = tails.get(key) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** The process-wide lock set used by `withWorkspaceLock`. */
const processLock = createWorkspaceLock();

/**
 * Runs `fn` with the process-wide lock of workspace directory `dir` held (FIFO per directory;
 * different directories do not wait for each other). Resolves with `fn`'s result; rethrows its error
 * after releasing the lock.
 */
export function withWorkspaceLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  return processLock(dir, fn);
}
