/**
 * Types of the HTTP server (CONTRACT §5): what it needs from the rest of the application and what
 * the dispatcher answers for each verified, parsed webhook.
 */
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Platform, PlatformName, ReviewComment } from '../platforms/types.js';

/**
 * What the dispatcher made of one ReviewComment; sent back as the 200 body
 * (`{"status":"accepted"}` or `{"status":"ignored","reason":"…"}`).
 */
export type DispatchOutcome = { status: 'accepted' } | { status: 'ignored'; reason: string };

/**
 * Takes one parsed webhook event: decides (mention, authorization, allowed repos, triggers) and
 * enqueues. Synchronous and fast: it must not wait for any platform call, because the HTTP response
 * waits for it. `log` is the delivery's child logger (`deliveryId`, `platform`, `repo`, `pr`).
 * Throwing is a bug: the server answers 500 and forgets the delivery id so GitHub may redeliver.
 */
export type Dispatch = (
  platform: Platform,
  comment: ReviewComment,
  log: Logger,
) => DispatchOutcome | Promise<DispatchOutcome>;

/** Options of `createServer`. */
export interface CreateServerOptions {
  /** Enabled platforms by name; only those with a `webhook` handler get a working webhook route. */
  platforms: ReadonlyMap<PlatformName, Platform>;
  dispatch: Dispatch;
  metrics: Metrics;
  /** Base logger; the server logs one line per webhook (info when accepted, else debug/warn). */
  logger: Logger;
  /** Largest accepted request body in bytes; larger ones get 413. Default 25 MiB (GitHub's cap). */
  bodyLimitBytes?: number;
  /**
   * How many recent delivery ids, and as many identities of events that started a job, are
   * remembered for de-duplication. Default 10 000.
   */
  dedupeCapacity?: number;
}
