/**
 * Keeps a per-key lease alive while its job runs: a compare-and-pexpire every third of the lease.
 * The lease counts as lost when Redis says another owner holds it (or it expired), or when no
 * renewal succeeded for a whole lease period (Redis unreachable: another replica may take over).
 */
import type { Redis } from 'ioredis';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { leaseKey } from './keys.js';
import { RENEW, runScript } from './scripts.js';

/** Options of `startLeaseRenewal`. */
export interface LeaseRenewalOptions {
  redis: Redis;
  /** Queue key (`platform:repo:pr:botType`). */
  key: string;
  ownerId: string;
  /** Lease length, ms. Renewals run every `leaseMs / 3` (at least every 50 ms). */
  leaseMs: number;
  logger: Logger;
  /** Called once when the lease is lost, with a short reason. */
  onLost: (reason: string) => void;
  /** When the lease was last set, epoch ms (the send time of the command that set it). Default: now. */
  since?: number;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** Starts renewing; returns the function that stops it. */
export function startLeaseRenewal(options: LeaseRenewalOptions): () => void {
  const { redis, key, ownerId, leaseMs, logger } = options;
  const now = options.now ?? Date.now;
  // The lease was set (or refreshed) no earlier than this.
  let renewedAt = options.since ?? now();
  let inFlight = false;
  let over = false;
  const lost = (reason: string) => {
    if (over) return;
    stop();
    options.onLost(reason);
  };
  const timer = setInterval(
    () => {
      if (now() - renewedAt >= leaseMs) {
        lost('lease not renewed within its lifetime (store unreachable)');
        return;
      }
      if (inFlight) return;
      inFlight = true;
      const sentAt = now();
      runScript(redis, RENEW, [leaseKey(key)], [ownerId, leaseMs]).then(
        (result) => {
          inFlight = false;
          if (over) return;
          if (result === 1) renewedAt = sentAt;
          else lost('lease held by another owner or expired');
        },
        (error: unknown) => {
          inFlight = false;
          if (!over) logger.warn({ key, err: describeError(error) }, 'lease renewal failed; retrying');
        },
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  function stop(): void {
    over = true;
    clearInterval(timer);
  }
  return stop;
}
