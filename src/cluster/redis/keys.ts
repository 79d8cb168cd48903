/**
 * Store key names of cluster mode. Public ones are fixed by CONTRACT §9 (`queue`, `done`, `conv`,
 * channel `reviewbot:done`); the rest are this package's own bookkeeping under `reviewbot:`.
 * `<key>` is a queue key, `platform:repo:pr:botType` (`sessionKeyString`).
 */
import { createHash } from 'node:crypto';

/** Prefix of every key reviewbot writes. */
export const KEY_PREFIX = 'reviewbot:';

/** Pub/sub channel of completion signals (CONTRACT §9). */
export const DONE_CHANNEL = 'reviewbot:done';

/** Set of queue keys that may have pending or in-flight jobs (internal). */
export const QUEUE_KEYS_SET = 'reviewbot:queue-keys';

/** `reviewbot:queue:<key>`: pending JobPayloads, FIFO (CONTRACT §9). */
export function queueKey(key: string): string {
  return `reviewbot:queue:${key}`;
}

/** `reviewbot:active:<key>`: the job taken by the key's consumer and not finished (internal). */
export function activeKey(key: string): string {
  return `reviewbot:active:${key}`;
}

/** `reviewbot:lease:<key>`: owner id of the replica consuming the key, with a TTL (internal). */
export function leaseKey(key: string): string {
  return `reviewbot:lease:${key}`;
}

/** `reviewbot:submitted:<jobId>`: marks a job as queued so a resent submit is not queued twice (internal). */
export function submittedKey(jobId: string): string {
  return `reviewbot:submitted:${jobId}`;
}

/** `reviewbot:done:<jobId>`: the completion record (CONTRACT §9). */
export function doneKey(jobId: string): string {
  return `reviewbot:done:${jobId}`;
}

/** `reviewbot:conv:<key>`: a session key's conversation (CONTRACT §9). */
export function conversationKey(key: string): string {
  return `reviewbot:conv:${key}`;
}

/**
 * `reviewbot:delivery:<platform>:<id>`: a webhook delivery id claimed by a server replica (webhook
 * de-duplication, CONTRACT §5). `id` is used as it is up to 64 characters, longer ones (the header
 * is unsigned and may be long) as `sha256:<hex>`.
 */
export function deliveryKey(platform: string, id: string): string {
  const kept = id.length <= 64 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
  return `reviewbot:delivery:${platform}:${kept}`;
}

/** `reviewbot:event:<identity>`: an event identity (64 hex digits) claimed by a server replica. */
export function eventKey(identity: string): string {
  return `reviewbot:event:${identity}`;
}
