/**
 * The completion signal of a cluster Job (CONTRACT §9; seed part 3 cluster rules 2–3): the Job pod
 * sets `reviewbot:done:<jobId>` (TTL 1 h) and then publishes the same JSON on channel
 * `reviewbot:done` (`publishDone`); the server waits for it (`createDoneWatcher`, done-watcher.ts).
 */
import type { Redis } from 'ioredis';
import { DONE_TTL_SECONDS, type DoneMessage, type DoneStatus } from './done-record.js';
import { DONE_CHANNEL, doneKey } from './keys.js';

export { DONE_CHANNEL, doneKey } from './keys.js';
export { DONE_TTL_SECONDS, parseDoneMessage, type DoneMessage, type DoneStatus } from './done-record.js';
export {
  createDoneWatcher,
  type DoneOutcome,
  type DoneSource,
  type DoneWaitOptions,
  type DoneWatcher,
  type DoneWatcherOptions,
} from './done-watcher.js';

/** What `publishDone` sends. */
export interface PublishDoneOptions {
  jobId: string;
  status: DoneStatus;
  /** Default: now. */
  finishedAt?: Date;
}

/**
 * Publishes a job's completion (Job pod side, also on failure): `SET reviewbot:done:<jobId> <json>
 * EX 3600`, THEN `PUBLISH reviewbot:done <json>`, so a server that subscribes late finds the key.
 * Returns the message sent.
 * @throws the connection's error when Redis cannot be reached (the caller logs it and exits 1).
 */
export async function publishDone(redis: Redis, options: PublishDoneOptions): Promise<DoneMessage> {
  const message: DoneMessage = {
    jobId: options.jobId,
    status: options.status,
    finishedAt: (options.finishedAt ?? new Date()).toISOString(),
  };
  const text = JSON.stringify(message);
  await redis.set(doneKey(message.jobId), text, 'EX', DONE_TTL_SECONDS);
  await redis.publish(DONE_CHANNEL, text);
  return message;
}
