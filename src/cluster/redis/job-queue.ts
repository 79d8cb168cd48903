/**
 * The cluster-mode session queue in Redis (seed part 3 "cluster rules"; CONTRACT §9): one list per
 * queue key, jobs of one key run one at a time and in order, across server restarts and with any
 * number of server replicas.
 *
 * Keys (`<key>` = `platform:repo:pr:botType`):
 * - `reviewbot:queue:<key>` (list): pending JobPayload JSON, FIFO (RPUSH, LMOVE LEFT);
 * - `reviewbot:active:<key>` (list): the job the key's consumer took and has not finished;
 * - `reviewbot:lease:<key>` (string, PX): owner id of the replica consuming the key;
 * - `reviewbot:queue-keys` (set): keys that may have work; `reviewbot:submitted:<jobId>`: dedup mark.
 *
 * A replica consumes a key while it holds the key's lease: each step (a Lua script) checks or takes
 * the lease, removes the finished job from active and moves the next one there atomically, or
 * releases the lease when both lists are empty. The lease is renewed while a job runs. A replica
 * that dies leaves its job in active; once its lease expires, the periodic sweep of any replica (or
 * `start()` after a restart) takes the key and runs that job again, then the rest.
 */
import { describeError } from '../../errors.js';
import { sessionKeyOf, sessionKeyString, type JobPayload } from '../../jobs/types.js';
import { activeKey, leaseKey, QUEUE_KEYS_SET, queueKey, submittedKey } from './keys.js';
import {
  discoverQueueKeys,
  parseStep,
  parseSweep,
  quitOrDisconnect,
  sleep,
  type StepResult,
} from './queue-support.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_SWEEP_INTERVAL_MS,
  type RedisJobQueue,
  type RedisJobQueueOptions,
} from './job-queue-options.js';
import { runLeasedJob } from './run-leased-job.js';
import { RELEASE, runScript, STEP, SUBMIT, SWEEP } from './scripts.js';

/** Lifetime of the `submitted` mark that makes a resent submit a no-op, seconds (1 day). */
const SUBMITTED_TTL_SECONDS = 86_400;

export {
  DEFAULT_LEASE_MS,
  DEFAULT_SWEEP_INTERVAL_MS,
  type ExecuteContext,
  type ExecuteJob,
  type RedisJobQueue,
  type RedisJobQueueOptions,
} from './job-queue-options.js';

type State = 'running' | 'stopping' | 'closed' | 'crashed';

interface Consumer {
  key: string;
  /** Set by `submit` for a key already being consumed: re-check before giving the key up. */
  kicked: boolean;
  controller: AbortController | undefined;
  current: JobPayload | undefined;
  loop: Promise<void>;
}

/**
 * Creates the Redis job queue (JobRunner of cluster mode). `submit` queues the payload in Redis and
 * tries to become the key's consumer without blocking the caller (errors are logged; `before` is
 * not used). `shutdown(timeoutMs)` stops taking jobs, waits up to `timeoutMs` for running
 * `execute` calls, aborts the rest, releases its leases so another replica resumes at once, closes
 * the connection and returns [] — every job not run stays in Redis, none is dropped.
 * @throws RangeError on an empty `ownerId` or out-of-range `leaseMs` / `sweepIntervalMs`.
 */
export function createRedisJobQueue(options: RedisJobQueueOptions): RedisJobQueue {
  const { ownerId, logger } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  if (ownerId.length === 0) throw new RangeError('ownerId must not be empty');
  if (!Number.isInteger(leaseMs) || leaseMs < 100)
    throw new RangeError(`leaseMs must be an integer >= 100, got ${leaseMs}`);
  if (!Number.isInteger(sweepIntervalMs) || sweepIntervalMs < 10) {
    throw new RangeError(`sweepIntervalMs must be an integer >= 10, got ${sweepIntervalMs}`);
  }
  const redis = options.redis();
  // Debug only: the factory's owner usually logs connection errors; this keeps ioredis from
  // printing "Unhandled error event" when it does not.
  redis.on('error', (error: unknown) =>
    logger.debug({ err: describeError(error) }, 'job queue: store connection error'),
  );

  const consumers = new Map<string, Consumer>();
  const depths = new Map<string, number>();
  let state: State = 'running';
  let started = false;
  let sweeping = false;
  let sweepTimer: NodeJS.Timeout | undefined;
  /** `state` read through a call, so checks after an await are not narrowed away by the compiler. */
  const current = (): State => state;

  const keysOf = (key: string) => [leaseKey(key), queueKey(key), activeKey(key), QUEUE_KEYS_SET];
  const depth = () => {
    let sum = 0;
    for (const n of depths.values()) sum += n;
    return sum;
  };
  function setDepth(key: string, n: number): void {
    if (n > 0) depths.set(key, n);
    else depths.delete(key);
    try {
      options.metrics.queueDepth(depth());
    } catch {
      // a metrics callback must not break the queue
    }
  }

  /** Makes sure `key` has a consumer here, unless another replica holds its lease. */
  function kick(key: string): void {
    if (state !== 'running') return;
    const existing = consumers.get(key);
    if (existing) {
      existing.kicked = true;
      return;
    }
    const consumer: Consumer = {
      key,
      kicked: false,
      controller: undefined,
      current: undefined,
      loop: Promise.resolve(),
    };
    consumers.set(key, consumer);
    consumer.loop = consume(consumer).catch((error: unknown) => {
      if (consumers.get(key) === consumer) consumers.delete(key);
      logger.error({ key, err: describeError(error) }, 'job queue: consumer failed');
    });
  }

  async function consume(consumer: Consumer): Promise<void> {
    const { key } = consumer;
    const end = () => {
      if (consumers.get(key) === consumer) consumers.delete(key);
    };
    let done = '';
    let holding = false;
    let failures = 0;
    for (;;) {
      if (current() === 'crashed' || current() === 'closed') return end();
      if (current() === 'stopping') {
        await release(key, done);
        return end();
      }
      consumer.kicked = false;
      const sentAt = Date.now();
      const handover = done !== '';
      let result: StepResult;
      try {
        result = parseStep(await runScript(redis, STEP, keysOf(key), [ownerId, leaseMs, key, done]));
        failures = 0;
      } catch (error) {
        if (current() === 'running') {
          failures += 1;
          logger.warn({ key, err: describeError(error) }, 'job queue: step failed; retrying');
          await sleep(Math.min(2000, 50 * 2 ** Math.min(failures, 6)));
        }
        continue;
      }
      if (current() === 'crashed' || current() === 'closed') return end();
      done = '';
      if (result.kind === 'busy') {
        if (holding)
          logger.error({ key }, 'job queue: lease taken by another owner; stopped taking jobs for this key');
        setDepth(key, result.depth);
        return end();
      }
      if (result.kind === 'released') {
        if (consumer.kicked && current() === 'running') continue;
        setDepth(key, 0);
        return end();
      }
      holding = true;
      setDepth(key, result.queued + 1);
      const finished = await runLeasedJob({
        redis,
        key,
        ownerId,
        leaseMs,
        logger,
        execute: options.execute,
        text: result.text,
        resumed: result.resumed,
        handover,
        leaseSetAt: sentAt,
        onRunning(job) {
          consumer.controller = job?.controller;
          consumer.current = job?.payload;
        },
      });
      if (!finished) {
        // Aborted (lease lost, shutdown past its bound, crash): the job stays in active.
        if (current() === 'stopping') await release(key, '');
        return end();
      }
      done = result.text;
      setDepth(key, result.queued);
    }
  }

  async function release(key: string, done: string): Promise<void> {
    try {
      await runScript(redis, RELEASE, keysOf(key), [ownerId, key, done]);
    } catch (error) {
      logger.warn(
        { key, err: describeError(error) },
        'job queue: could not release a lease; it expires on its own',
      );
    }
  }

  /** Takes over every key whose lease is free (a replica died, or a restart) and refreshes depths. */
  async function sweep(): Promise<void> {
    if (state !== 'running' || sweeping) return;
    sweeping = true;
    try {
      const entries = parseSweep(await runScript(redis, SWEEP, [QUEUE_KEYS_SET], []));
      if (state !== 'running') return;
      const listed = new Set(entries.map((entry) => entry.key));
      for (const key of [...depths.keys()]) if (!listed.has(key) && !consumers.has(key)) setDepth(key, 0);
      for (const entry of entries) {
        if (!consumers.has(entry.key)) setDepth(entry.key, entry.depth);
        if (entry.leaseFree) kick(entry.key);
      }
    } catch (error) {
      logger.warn({ err: describeError(error) }, 'job queue: sweep failed');
    } finally {
      sweeping = false;
    }
  }

  return {
    submit(payload) {
      const key = sessionKeyString(sessionKeyOf(payload));
      const log = logger.child({ key, jobId: payload.jobId });
      if (state === 'closed' || state === 'crashed') {
        log.warn('job queue: closed; job not taken');
        return Promise.reject(new Error('the job queue is closed'));
      }
      setDepth(key, (depths.get(key) ?? 0) + 1);
      const args = [JSON.stringify(payload), key, SUBMITTED_TTL_SECONDS];
      return runScript(
        redis,
        SUBMIT,
        [queueKey(key), QUEUE_KEYS_SET, submittedKey(payload.jobId)],
        args,
      ).then(
        (queued) => {
          if (queued !== 1) {
            log.warn('job queue: job id queued before; ignoring the repeat');
            setDepth(key, (depths.get(key) ?? 1) - 1);
          }
          if (state === 'running') kick(key);
          else log.info('job queue: shutting down; job kept in the store for another replica or a restart');
        },
        (error: unknown) => {
          log.error({ err: describeError(error) }, 'job queue: could not queue the job');
          setDepth(key, (depths.get(key) ?? 1) - 1);
          throw error;
        },
      );
    },
    depth,
    async start() {
      if (started || state !== 'running') return;
      started = true;
      sweepTimer = setInterval(() => void sweep(), sweepIntervalMs);
      sweepTimer.unref();
      try {
        const found = await discoverQueueKeys(redis);
        if (found.length > 0) await redis.sadd(QUEUE_KEYS_SET, ...found);
      } catch (error) {
        logger.warn({ err: describeError(error) }, 'job queue: scan for queue keys failed');
      }
      await sweep();
    },
    async shutdown(timeoutMs) {
      if (state !== 'running') return [];
      state = 'stopping';
      clearInterval(sweepTimer);
      const loops = [...consumers.values()].map((consumer) => consumer.loop);
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
      });
      const drained = await Promise.race([Promise.allSettled(loops).then(() => true as const), bound]);
      clearTimeout(timer);
      if (!drained) {
        const left = [...consumers.values()];
        for (const consumer of left) consumer.controller?.abort(new Error('shutting down'));
        await Promise.allSettled(left.map((consumer) => release(consumer.key, '')));
        const jobIds = left.flatMap((consumer) => (consumer.current ? [consumer.current.jobId] : []));
        logger.warn(
          { jobIds },
          'job queue: jobs still running at shutdown stay in the store and will be resumed',
        );
      }
      state = 'closed';
      await quitOrDisconnect(redis);
      return [];
    },
    crash() {
      state = 'crashed';
      clearInterval(sweepTimer);
      for (const consumer of consumers.values()) consumer.controller?.abort(new Error('crashed'));
      consumers.clear();
      redis.disconnect();
    },
  };
}
