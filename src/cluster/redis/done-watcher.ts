/**
 * The server side of the completion signal (CONTRACT §9; seed part 3 cluster rules 2–3): one
 * subscription to `reviewbot:done` shared by all waits, dispatched by job id; a key check so a
 * signal sent before the wait is not missed; the deadline (`active_deadline_seconds` + 10 s after the
 * Job was created) or a failed poll writes the `failed` record itself and moves on.
 */
import type { Redis } from 'ioredis';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { DONE_TTL_SECONDS, parseDoneMessage, type DoneMessage, type DoneStatus } from './done-record.js';
import { DONE_CHANNEL, doneKey } from './keys.js';

/** Where a wait's outcome came from. */
export type DoneSource = 'signal' | 'key' | 'deadline' | 'poll';

/** Outcome of `DoneWatcher.wait`. */
export interface DoneOutcome {
  status: DoneStatus;
  source: DoneSource;
}

/** Options of one `DoneWatcher.wait`. */
export interface DoneWaitOptions {
  /** When to give up, epoch ms (Job creation + `active_deadline_seconds` + 10 s). */
  deadlineAt: number;
  /** Aborting rejects the wait with the signal's reason (nothing is written). */
  signal?: AbortSignal;
  /**
   * Asked every `pollIntervalMs` (e.g. "did Kubernetes report the Job failed?"); `'failed'` ends the
   * wait like the deadline does. A rejection is logged and the next poll tries again.
   */
  poll?: () => Promise<'failed' | undefined>;
}

/** Options of `createDoneWatcher`. */
export interface DoneWatcherOptions {
  logger?: Logger;
  /** Interval of `poll` calls, ms. Default 5000. */
  pollIntervalMs?: number;
  /** Interval at which the keys of all pending waits are read again (safety net), ms. Default 10 000. */
  recheckIntervalMs?: number;
  /** Clock, epoch ms (tests). Default `Date.now`. */
  now?: () => number;
}

/** Waits for completion signals of many jobs over one subscription. */
export interface DoneWatcher {
  /** Resolves once the subscription to `reviewbot:done` is active; await it before creating Jobs. */
  ready(): Promise<void>;
  /**
   * Resolves when job `jobId` is done: its message arrives (`signal`), its key is found (`key`: at
   * the start, after a reconnect, on a periodic re-check), `poll` reports `'failed'` (`poll`), or
   * `deadlineAt` passes (`deadline`). On `poll`/`deadline` it writes `reviewbot:done:<jobId>` =
   * failed with SET NX (a real record written meanwhile wins and is returned, source `key`); when
   * Redis cannot be written within 2 s it still resolves `failed`. Await `ready()` once before
   * creating Jobs; `wait` may then be called before or after creating the Job (the key check covers
   * a signal sent in between). Any number of waits may run at once, several for one job id too.
   * @throws the signal's reason when aborted; Error when the watcher is closed.
   */
  wait(jobId: string, options: DoneWaitOptions): Promise<DoneOutcome>;
  /** Number of waits in progress. */
  pending(): number;
  /** Unsubscribes, stops timers and rejects pending waits. The connections stay open (the caller's). */
  close(): Promise<void>;
}

interface Waiter {
  jobId: string;
  settle(outcome: DoneOutcome): void;
  fail(error: unknown): void;
}

/** Longest wait for writing the `failed` record before moving on anyway, ms. */
const FAIL_WRITE_TIMEOUT_MS = 2000;

/**
 * Creates a DoneWatcher. `subscriber` is a connection used only for the subscription (ioredis
 * re-subscribes after a reconnect; the watcher then reads the keys of all pending waits again, since
 * a message may have been lost meanwhile); `commands` is a normal connection for GET/SET.
 * Subscribes at once.
 */
export function createDoneWatcher(
  subscriber: Redis,
  commands: Redis,
  options: DoneWatcherOptions = {},
): DoneWatcher {
  const logger = options.logger;
  const now = options.now ?? Date.now;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const waiters = new Map<string, Set<Waiter>>();
  let closed = false;

  function subscribe(): Promise<void> {
    return subscriber.subscribe(DONE_CHANNEL).then(() => undefined);
  }
  let subscribed = subscribe();
  subscribed.catch((error: unknown) =>
    logger?.warn({ err: describeError(error) }, 'done watcher: subscribe failed'),
  );

  function onMessage(channel: string, text: string): void {
    if (channel !== DONE_CHANNEL) return;
    const message = parseDoneMessage(text);
    if (!message) {
      logger?.warn('done watcher: ignoring a malformed completion message');
      return;
    }
    settleAll(message.jobId, { status: message.status, source: 'signal' });
  }

  /**
   * On every (re)connection: make sure the subscription is active (ioredis re-subscribes too; a
   * second SUBSCRIBE is harmless and covers a first one that failed), then read every pending key,
   * since a message sent while disconnected is lost.
   */
  function onSubscriberReady(): void {
    if (closed) return;
    subscribed = subscribe();
    subscribed.then(
      () => recheck(),
      (error: unknown) => logger?.warn({ err: describeError(error) }, 'done watcher: re-subscribe failed'),
    );
  }
  subscriber.on('message', onMessage);
  subscriber.on('ready', onSubscriberReady);

  function settleAll(jobId: string, outcome: DoneOutcome): void {
    const set = waiters.get(jobId);
    if (!set) return;
    for (const waiter of [...set]) waiter.settle(outcome);
  }

  /** Reads the keys of all pending waits (MGET) and settles those found. */
  async function recheck(): Promise<void> {
    const ids = [...waiters.keys()];
    if (ids.length === 0) return;
    try {
      const values = await commands.mget(ids.map(doneKey));
      for (const [index, id] of ids.entries()) {
        const message = parseDoneMessage(values[index]);
        if (message) settleAll(id, { status: message.status, source: 'key' });
      }
    } catch (error) {
      logger?.warn({ err: describeError(error) }, 'done watcher: re-check of pending keys failed');
    }
  }

  const recheckTimer = setInterval(() => void recheck(), options.recheckIntervalMs ?? 10_000);
  recheckTimer.unref();

  async function checkKey(waiter: Waiter): Promise<void> {
    try {
      const message = parseDoneMessage(await commands.get(doneKey(waiter.jobId)));
      if (message) waiter.settle({ status: message.status, source: 'key' });
    } catch (error) {
      logger?.warn({ jobId: waiter.jobId, err: describeError(error) }, 'done watcher: key check failed');
    }
  }

  /** Writes the `failed` record unless one exists; returns the record that stands, if readable. */
  async function writeFailed(jobId: string): Promise<DoneMessage | undefined> {
    const text = JSON.stringify({ jobId, status: 'failed', finishedAt: new Date(now()).toISOString() });
    const write = (async () => {
      const set = await commands.set(doneKey(jobId), text, 'EX', DONE_TTL_SECONDS, 'NX');
      if (set !== null) return parseDoneMessage(text);
      return parseDoneMessage(await commands.get(doneKey(jobId)));
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), FAIL_WRITE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([write, timeout]);
    } catch (error) {
      logger?.warn({ jobId, err: describeError(error) }, 'done watcher: could not write the failed record');
      return undefined;
    } finally {
      clearTimeout(timer);
      write.catch(() => undefined);
    }
  }

  function wait(jobId: string, waitOptions: DoneWaitOptions): Promise<DoneOutcome> {
    if (closed) return Promise.reject(new Error('done watcher is closed'));
    const { signal, poll } = waitOptions;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<DoneOutcome>((resolve, reject) => {
      let finished = false;
      let giving = false;
      let polling = false;
      const timers: NodeJS.Timeout[] = [];
      const cleanup = () => {
        finished = true;
        for (const timer of timers) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const set = waiters.get(jobId);
        set?.delete(waiter);
        if (set?.size === 0) waiters.delete(jobId);
      };
      const waiter: Waiter = {
        jobId,
        settle(outcome) {
          if (finished) return;
          cleanup();
          resolve(outcome);
        },
        fail(error) {
          if (finished) return;
          cleanup();
          reject(error);
        },
      };
      const onAbort = () => waiter.fail(signal?.reason);
      const giveUp = async (source: 'deadline' | 'poll') => {
        if (finished || giving) return;
        giving = true;
        logger?.warn({ jobId, source }, 'no completion signal; recording the job as failed');
        const standing = await writeFailed(jobId);
        if (standing && standing.status !== 'failed')
          waiter.settle({ status: standing.status, source: 'key' });
        else waiter.settle({ status: 'failed', source });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const set = waiters.get(jobId) ?? new Set<Waiter>();
      set.add(waiter);
      waiters.set(jobId, set);
      // setTimeout's longest delay is 2^31 - 1 ms; re-arm until the deadline is reached.
      const armDeadline = () => {
        const left = waitOptions.deadlineAt - now();
        if (left <= 0) void giveUp('deadline');
        else timers.push(setTimeout(armDeadline, Math.min(left, 2 ** 31 - 1)));
      };
      if (poll) {
        const schedulePoll = () => {
          timers.push(
            setTimeout(() => {
              if (finished || polling) return;
              polling = true;
              poll().then(
                (state) => {
                  polling = false;
                  if (state === 'failed') void giveUp('poll');
                  else if (!finished) schedulePoll();
                },
                (error: unknown) => {
                  polling = false;
                  logger?.warn({ jobId, err: describeError(error) }, 'done watcher: poll failed');
                  if (!finished) schedulePoll();
                },
              );
            }, pollIntervalMs),
          );
        };
        schedulePoll();
      }
      armDeadline();
      // The key check runs once the subscription is active: a message sent after the check is
      // then delivered, one sent before it left the key behind.
      void subscribed.catch(() => undefined).then(() => (finished ? undefined : checkKey(waiter)));
    });
  }

  return {
    ready: () => subscribed,
    wait,
    pending: () => [...waiters.values()].reduce((sum, set) => sum + set.size, 0),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(recheckTimer);
      subscriber.off('message', onMessage);
      subscriber.off('ready', onSubscriberReady);
      for (const set of [...waiters.values()]) {
        for (const waiter of [...set]) waiter.fail(new Error('done watcher is closed'));
      }
      try {
        await subscriber.unsubscribe(DONE_CHANNEL);
      } catch {
        // the connection may be gone already
      }
    },
  };
}
