/** Test helpers of the Redis job queue: a recording fake `execute`, payloads per key, log capture. */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { JobPayload } from '../../jobs/types.js';
export { payloadsFor } from '../../../test/support/job-payloads.js';
import type { Logger } from '../../logger.js';
import {
  createRedisJobQueue,
  type ExecuteContext,
  type RedisJobQueue,
  type RedisJobQueueOptions,
} from './job-queue.js';

/** One `execute` call as seen by the fake. */
export interface Span {
  owner: string;
  jobId: string;
  /** `github:acme/widgets:<pr>:reviewer`. */
  key: string;
  resumed: boolean;
  /** `ExecuteContext.handover`: taken in the step that settled the key's previous job. */
  handover: boolean;
  start: number;
  /** Set when the call returned. */
  end?: number;
  aborted?: boolean;
}

/** How the fake runs a job: sleep this many ms, or block until aborted. */
export type Behaviour = number | 'block';

/** Records spans of every replica's `execute` calls. */
export interface Recorder {
  spans: Span[];
  /** The `execute` of replica `owner`; `behaviour(payload)` decides how long each call takes. */
  execute(owner: string, behaviour?: (payload: JobPayload) => Behaviour): RedisJobQueueOptions['execute'];
  /** Finished (not aborted) spans of `jobId`. */
  finished(jobId: string): Span[];
  /** All spans of `jobId`. */
  runs(jobId: string): Span[];
}

/** Creates a Recorder. */
export function createRecorder(): Recorder {
  const spans: Span[] = [];
  return {
    spans,
    execute(owner, behaviour = () => 20) {
      return async (payload: JobPayload, context: ExecuteContext) => {
        const span: Span = {
          owner,
          jobId: payload.jobId,
          key: `${payload.comment.platform}:${payload.comment.repoFullName}:${payload.comment.prNumber}:${payload.botType}`,
          resumed: context.resumed,
          handover: context.handover,
          start: Date.now(),
        };
        spans.push(span);
        const how = behaviour(payload);
        await new Promise<void>((resolve) => {
          const timer = how === 'block' ? undefined : setTimeout(resolve, how);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            span.aborted = true;
            resolve();
          });
        });
        span.end = Date.now();
      };
    },
    finished: (jobId) =>
      spans.filter((span) => span.jobId === jobId && span.end !== undefined && !span.aborted),
    runs: (jobId) => spans.filter((span) => span.jobId === jobId),
  };
}

/** Pairs of spans of the same key whose run times overlap (must be empty). */
export function overlapsWithinKey(spans: Span[]): Array<[Span, Span]> {
  const found: Array<[Span, Span]> = [];
  for (const [index, a] of spans.entries()) {
    for (const b of spans.slice(index + 1)) {
      if (a.key !== b.key) continue;
      const aEnd = a.end ?? Number.POSITIVE_INFINITY;
      const bEnd = b.end ?? Number.POSITIVE_INFINITY;
      if (a.start < bEnd && b.start < aEnd) found.push([a, b]);
    }
  }
  return found;
}

/** The queue key of pull request `pr` (reviewer). */
export function keyOf(pr: number): string {
  return `github:acme/widgets:${pr}:reviewer`;
}

/** A logger whose lines (parsed JSON) are kept in `lines`. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

/** Creates queues on `url` and shuts them all down (or leaves crashed ones) at `closeAll()`. */
export function queueFactory(url: string) {
  const made: RedisJobQueue[] = [];
  return {
    create(
      options: Omit<RedisJobQueueOptions, 'redis' | 'metrics'> &
        Partial<Pick<RedisJobQueueOptions, 'metrics'>>,
    ) {
      const queue = createRedisJobQueue({
        redis: () => new Redis(url),
        metrics: { queueDepth: () => undefined },
        ...options,
      });
      made.push(queue);
      return queue;
    },
    async closeAll() {
      await Promise.all(made.splice(0).map((queue) => queue.shutdown(0)));
    },
  };
}
