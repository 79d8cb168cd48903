/**
 * The gate in front of the Kubernetes API calls that start a queued job (look its Job up, create
 * it): at most `concurrency` such calls at once per server, and the order in which waiting starts
 * get a free slot.
 *
 * Why a bound: without one, a burst (a restart resuming hundreds of keys, a storm of mentions)
 * sends every create at once; the API server then answers them all slowly, and a key whose Job just
 * ended waits behind the whole burst before its next Job exists. Why an order: a hand-over (the next
 * job of a key whose previous Job just signalled its end; seed "Cluster mode rules" 2: the server
 * "starts the next queued job immediately") goes before the first job of an idle key, so keys
 * already running keep moving; idle keys are never starved: a first job that has waited
 * `maxFirstWaitMs` goes before any hand-over. Without contention (the normal case: Jobs run for
 * minutes) nothing waits.
 */

/** Default number of Job starts (Kubernetes API calls) in flight at once per server. */
export const DEFAULT_CREATION_CONCURRENCY = 8;
/** Default longest wait of a first job behind hand-overs, ms. */
export const DEFAULT_MAX_FIRST_WAIT_MS = 2_000;

/** What kind of start waits at the gate: see the module comment. */
export type StartKind = 'handover' | 'first';

/** Options of `createCreationGate`. */
export interface CreationGateOptions {
  /** Starts in flight at once (integer >= 1). Default `DEFAULT_CREATION_CONCURRENCY`. */
  concurrency?: number;
  /** How long a first job may wait behind hand-overs, ms (integer >= 0). Default 2 000. */
  maxFirstWaitMs?: number;
  /** Clock, ms (tests). Default `performance.now`. */
  now?: () => number;
}

/** Bounds and orders Job starts; see the module comment. */
export interface CreationGate {
  /**
   * Runs `task` once a slot is free and returns its result; the slot is freed when `task` settles.
   * @throws `task`'s error; the abort reason of `signal` when it is aborted while waiting (the
   *   task is then never run).
   */
  run<T>(kind: StartKind, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Starts waiting for a slot (not counting those in flight). */
  waiting(): number;
}

interface Waiter {
  /** When it began to wait (`now()`), ms. */
  since: number;
  go: () => void;
}

/**
 * Creates a CreationGate.
 * @throws RangeError when `concurrency` is not an integer >= 1 or `maxFirstWaitMs` not one >= 0.
 */
export function createCreationGate(options: CreationGateOptions = {}): CreationGate {
  const concurrency = options.concurrency ?? DEFAULT_CREATION_CONCURRENCY;
  const maxFirstWaitMs = options.maxFirstWaitMs ?? DEFAULT_MAX_FIRST_WAIT_MS;
  const now = options.now ?? (() => performance.now());
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
  }
  if (!Number.isInteger(maxFirstWaitMs) || maxFirstWaitMs < 0) {
    throw new RangeError(`maxFirstWaitMs must be an integer >= 0, got ${maxFirstWaitMs}`);
  }
  const queues: Record<StartKind, Waiter[]> = { handover: [], first: [] };
  let inFlight = 0;

  /** Hands the slot just freed to the next waiter, or gives it back. */
  function release(): void {
    const { handover, first } = queues;
    const oldest = first[0];
    const takeFirst =
      oldest !== undefined && (handover.length === 0 || now() - oldest.since >= maxFirstWaitMs);
    const next = takeFirst ? first.shift() : handover.shift();
    if (next) next.go();
    else inFlight -= 1;
  }

  function acquire(kind: StartKind, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (inFlight < concurrency) {
      inFlight += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = queues[kind];
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        since: now(),
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    async run(kind, task, signal) {
      await acquire(kind, signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    waiting: () => queues.handover.length + queues.first.length,
  };
}
