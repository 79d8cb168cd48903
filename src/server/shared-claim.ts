/**
 * The webhook route's use of the de-duplication shared by server replicas (`SharedDedupe`, the
 * store of `store.url`; CONTRACT §5): one claim per webhook that parses into an event, after this
 * process's own memory said it is new. Fails open: when the store does not answer, the webhook is
 * dispatched anyway (a warning is logged and `reviewbot_webhook_dedupe_unavailable_total` counts
 * it) — no job lost matters more than a rare duplicate.
 */
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { SharedClaim, SharedClaimRequest, SharedDedupe } from './types.js';

/** Name of the counter of webhooks dispatched without the shared check. */
export const DEDUPE_UNAVAILABLE_METRIC = 'reviewbot_webhook_dedupe_unavailable_total';

/** Claims a webhook in the shared store; undefined when there is none or nothing to claim. */
export type SharedClaimer = (request: SharedClaimRequest, log: Logger) => Promise<SharedClaim | undefined>;

/**
 * The claimer of `dedupe` (none: a claimer that claims nothing). With a store, registers the
 * counter `reviewbot_webhook_dedupe_unavailable_total{platform}` on `registry` (or uses the one
 * registered there before).
 */
export function createSharedClaimer(dedupe: SharedDedupe | undefined, registry: Registry): SharedClaimer {
  if (!dedupe) return () => Promise.resolve(undefined);
  const unavailable =
    (registry.getSingleMetric(DEDUPE_UNAVAILABLE_METRIC) as Counter<'platform'> | undefined) ??
    new Counter({
      name: DEDUPE_UNAVAILABLE_METRIC,
      help: 'Webhooks dispatched without the cross-replica duplicate check because the store did not answer',
      labelNames: ['platform'],
      registers: [registry],
    });
  return async (request, log) => {
    if (request.deliveryId === undefined && request.identity === undefined) return undefined;
    const claim = await dedupe.claim(request);
    if (claim.status === 'unavailable') {
      unavailable.inc({ platform: request.platform });
      log.warn(
        { err: claim.error },
        'store unavailable: webhook dispatched without the cross-replica duplicate check',
      );
    }
    return claim;
  };
}

/**
 * Gives back `claim`'s keys (`what` as `SharedClaim`'s `release`) and waits for the store; a
 * failure is logged (the keys then expire with their TTL), never thrown.
 */
export async function releaseShared(
  claim: Extract<SharedClaim, { status: 'claimed' }> | undefined,
  what: 'event' | 'all',
  log: Logger,
): Promise<void> {
  if (!claim) return;
  try {
    await claim.release(what);
  } catch (error) {
    log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'store: a webhook claim was not released; a copy of the event is ignored until it expires',
    );
  }
}
