/**
 * Helpers of the Redis job queue: decoding the replies of its Lua scripts, finding queue keys by
 * SCAN, and closing a connection without hanging on an unreachable store.
 */
import type { Redis } from 'ioredis';

/** A decoded STEP reply (see `STEP` in scripts.ts). */
export type StepResult =
  | { kind: 'busy'; depth: number }
  | { kind: 'released' }
  | { kind: 'job'; text: string; queued: number; resumed: boolean };

/**
 * Decodes a STEP reply.
 * @throws Error on a reply of another shape (a script/version mismatch).
 */
export function parseStep(reply: unknown): StepResult {
  if (Array.isArray(reply)) {
    const [code, first, second] = reply as unknown[];
    if (code === -1) return { kind: 'busy', depth: Number(first) };
    if (code === 0) return { kind: 'released' };
    if ((code === 1 || code === 2) && typeof first === 'string') {
      return { kind: 'job', text: first, queued: Number(second), resumed: code === 2 };
    }
  }
  throw new Error(`unexpected reply from the queue step script: ${JSON.stringify(reply)}`);
}

/** One key listed by the SWEEP script. */
export interface SweepEntry {
  key: string;
  /** Pending + in-flight jobs. */
  depth: number;
  leaseFree: boolean;
}

/**
 * Decodes a SWEEP reply (`[key, depth, leaseFree, …]`).
 * @throws Error on a reply of another shape.
 */
export function parseSweep(reply: unknown): SweepEntry[] {
  if (!Array.isArray(reply) || reply.length % 3 !== 0) {
    throw new Error('unexpected reply from the queue sweep script');
  }
  const entries: SweepEntry[] = [];
  for (let index = 0; index < reply.length; index += 3) {
    entries.push({
      key: String(reply[index]),
      depth: Number(reply[index + 1]),
      leaseFree: reply[index + 2] === 1,
    });
  }
  return entries;
}

const QUEUE_PREFIX = 'reviewbot:queue:';
const ACTIVE_PREFIX = 'reviewbot:active:';

/** Queue keys (`platform:repo:pr:botType`) that have a `queue` or `active` list, found by SCAN. */
export async function discoverQueueKeys(redis: Redis): Promise<string[]> {
  const found = new Set<string>();
  for (const prefix of [QUEUE_PREFIX, ACTIVE_PREFIX]) {
    let cursor = '0';
    do {
      const [next, names] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const name of names) found.add(name.slice(prefix.length));
    } while (cursor !== '0');
  }
  return [...found];
}

/** Sends QUIT, and drops the connection if the store does not answer within `timeoutMs` (ms). */
export async function quitOrDisconnect(redis: Redis, timeoutMs = 1000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([
    redis.quit().then(
      () => undefined,
      () => undefined,
    ),
    bound,
  ]);
  clearTimeout(timer);
  redis.disconnect();
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
