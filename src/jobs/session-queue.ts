/**
 * The session queue (seed part 3): one FIFO per session key with a single consumer task, created on
 * the first enqueue and removed when drained, so one job runs per key at a time; plus a global cap
 * (`webhook.max_concurrent_jobs`) on jobs running across all keys. A job holds a slot only while it
 * runs; keys waiting for a slot get one in the order they asked (FIFO fairness across keys).
 */

/** Options of `createSessionQueue`. */
export interface SessionQueueOptions<T> {
  /** Most items running at once across all keys (>= 1). */
  maxConcurrent: number;
  /** Runs one item; a rejection is passed to `onError` and the consumer moves on. */
  process: (item: T, key: string) => Promise<void>;
  /** Receives what `process` threw (it should not throw; this is the last resort). */
  onError?: (error: unknown, item: T, key: string) => void;
  /** Called with `depth()` whenever it changes. */
  onDepthChange?: (depth: number) => void;
}

/** A per-key FIFO queue with a global concurrency cap. */
export interface SessionQueue<T> {
  /**
   * Appends `item` to the queue of `key` (creating queue and consumer when there is none). `before`,
   * when given, is awaited (its rejection ignored) before the item starts, without holding a slot.
   * Returns false, and drops the item, after `shutdown` was called.
   */
  enqueue(key: string, item: T, before?: Promise<unknown>): boolean;
  /** Items queued, waiting or running. */
  depth(): number;
  /** Keys that currently have a queue (and a consumer). */
  keys(): string[];
  /** Resolves when nothing is queued or running (at once when idle). */
  idle(): Promise<void>;
  /**
   * Stops taking items, drops every item that has not started, waits up to `timeoutMs` ms for the
   * running ones, and returns the dropped items plus those still running at the deadline.
   */
  shutdown(timeoutMs: number): Promise<T[]>;
}

interface Entry<T> {
  item: T;
  before: Promise<unknown> | undefined;
}

/** A FIFO counting semaphore whose waiters can be released with `false` on shutdown. */
function createSlots(max: number) {
  let free = max;
  const waiters: Array<(granted: boolean) => void> = [];
  return {
    acquire(): Promise<boolean> {
      if (free > 0 && waiters.length === 0) {
        free -= 1;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => waiters.push(resolve));
    },
    release(): void {
      const next = waiters.shift();
      if (next) next(true);
      else free += 1;
    },
    cancelWaiters(): void {
      for (const waiter of waiters.splice(0)) waiter(false);
    },
  };
}

/**
 * Creates a session queue.
 * @throws RangeError when `maxConcurrent` is not an integer >= 1.
 */
export function createSessionQueue<T>(options: SessionQueueOptions<T>): SessionQueue<T> {
  if (!Number.isInteger(options.maxConcurrent) || options.maxConcurrent < 1) {
    throw new RangeError(`maxConcurrent must be an integer >= 1, got ${options.maxConcurrent}`);
  }
  const queues = new Map<string, Entry<T>[]>();
  const slots = createSlots(options.maxConcurrent);
  /** Items taken off a queue by their consumer, not finished yet. */
  const inFlight = new Set<T>();
  /** Items that started running, with their completion. */
  const running = new Map<T, Promise<void>>();
  let pending = 0;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];

  function changed(delta: number): void {
    pending += delta;
    try {
      options.onDepthChange?.(pending);
    } catch {
      // a metrics callback must not break the queue
    }
    if (pending === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  async function runOne(key: string, entry: Entry<T>): Promise<void> {
    if (entry.before) await entry.before.catch(() => undefined);
    if (stopped || !(await slots.acquire())) return;
    if (stopped) {
      slots.release();
      return;
    }
    const done = options.process(entry.item, key).catch((error: unknown) => {
      try {
        options.onError?.(error, entry.item, key);
      } catch {
        // ignore
      }
    });
    running.set(entry.item, done);
    try {
      await done;
    } finally {
      running.delete(entry.item);
      slots.release();
    }
  }

  /** The single consumer of `key`: runs its items in order, then removes the queue. */
  async function consume(key: string, queue: Entry<T>[]): Promise<void> {
    for (let entry = queue.shift(); entry !== undefined && !stopped; entry = queue.shift()) {
      inFlight.add(entry.item);
      try {
        await runOne(key, entry);
      } finally {
        inFlight.delete(entry.item);
        if (!stopped) changed(-1);
      }
    }
    // No await between the last `shift()` finding nothing and this delete, so an enqueue cannot
    // slip in between.
    if (queues.get(key) === queue) queues.delete(key);
  }

  return {
    enqueue(key, item, before) {
      if (stopped) return false;
      const entry: Entry<T> = { item, before };
      const queue = queues.get(key);
      if (queue) {
        queue.push(entry);
        changed(1);
        return true;
      }
      const fresh = [entry];
      queues.set(key, fresh);
      changed(1);
      void consume(key, fresh);
      return true;
    },
    depth: () => pending,
    keys: () => [...queues.keys()],
    idle() {
      return pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async shutdown(timeoutMs) {
      if (stopped) return [];
      stopped = true;
      const dropped: T[] = [];
      for (const queue of queues.values()) for (const entry of queue.splice(0)) dropped.push(entry.item);
      for (const item of inFlight) if (!running.has(item)) dropped.push(item);
      queues.clear();
      slots.cancelWaiters();
      const active = [...running.entries()];
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, timeoutMs));
      });
      await Promise.race([Promise.all(active.map(([, done]) => done)), deadline]);
      clearTimeout(timer);
      for (const [item] of active) if (running.has(item)) dropped.push(item);
      pending = 0;
      changed(0);
      return dropped;
    },
  };
}
