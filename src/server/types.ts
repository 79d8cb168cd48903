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
  /**
   * De-duplication shared by every server replica (the store of `store.url`), asked after this
   * process's own memory. Default none: each process remembers only what it saw.
   */
  sharedDedupe?: SharedDedupe;
}

/** What a webhook claims in the shared store: its delivery id and its event identity, if any. */
export interface SharedClaimRequest {
  platform: PlatformName;
  deliveryId?: string;
  /** `eventIdentity(comment)`: 64 hex digits. */
  identity?: string;
}

/**
 * The store's answer to a claim: `claimed` (this request holds the keys now), `duplicate delivery`
 * (the delivery id was claimed before), `duplicate event` (the event was claimed before under
 * another delivery id) or `unavailable` (the store did not answer in time; nothing is known).
 */
export type SharedClaim =
  | {
      status: 'claimed';
      /**
       * Gives back what this claim took, only where the keys still hold this claim's token:
       * `'event'` the event identity (its dispatch started no job, so a later copy may), `'all'` the
       * delivery id too (the dispatch failed, so a redelivery may run). Resolves once the store
       * answered or the store's time limit passed.
       * @throws the store's error (the caller logs it: the keys then expire with their TTL).
       */
      release(what: 'event' | 'all'): Promise<void>;
    }
  | { status: 'duplicate delivery' | 'duplicate event' }
  | { status: 'unavailable'; error: string };

/**
 * Webhook de-duplication across server replicas (CONTRACT §5): one store round trip per webhook
 * that parses into an event. Fails open: a store that cannot answer yields `unavailable`, and the
 * webhook is dispatched anyway, since a lost job costs more than a rare duplicate.
 */
export interface SharedDedupe {
  /** Claims the request's keys in one round trip; never rejects (a failure is `unavailable`). */
  claim(request: SharedClaimRequest): Promise<SharedClaim>;
}
