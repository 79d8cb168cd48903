/**
 * Webhook de-duplication shared by every server replica (CONTRACT §5): copies of one webhook that
 * reach different replicas behind one Service start at most one job. After its own in-memory
 * check, a replica claims in the store, in one round trip (a Lua script):
 * - `reviewbot:delivery:<platform>:<id>`: the delivery id (`deliveryKey`), and
 * - `reviewbot:event:<identity>`: the event identity (`eventKey`, `src/server/event-identity.ts`),
 * each set to this claim's random token with the TTL `ttlSeconds` (`store.key_ttl_seconds`, 24 h
 * by default: a copy arriving later than that starts a job again). A delivery id already held
 * answers `duplicate delivery`; else an event already held answers `duplicate event` (and the
 * delivery id is not recorded, so replaying one signed body under many ids adds no keys); else
 * both are set. A release (the dispatch started no job, or failed) deletes a key only while it
 * still holds this claim's token (compare-and-delete), so it never frees another replica's claim.
 *
 * Fails open: when the store does not answer within `timeoutMs` (or the connection is down) the
 * claim is `unavailable` and the server dispatches the webhook anyway. No job lost matters more
 * than a rare duplicate: Redis down means at worst one job per copy, as before this check existed.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { SecretMasker } from '../../secrets.js';
import type { SharedClaim, SharedClaimRequest, SharedDedupe } from '../../server/types.js';
import { deliveryKey, eventKey } from './keys.js';
import { defineScript, runScript, type LuaScript } from './scripts.js';

/** Default longest wait for the store, ms: the webhook's answer waits for the claim. */
export const CLAIM_TIMEOUT_MS = 1000;

/**
 * KEYS: the delivery key (when ARGV[3] is '1'), then the event key (if any); ARGV: token, TTL (s),
 * '1' when KEYS[1] is a delivery key. Returns 0 claimed, 1 duplicate delivery, 2 duplicate event.
 */
export const CLAIM_WEBHOOK = defineScript(`
local withDelivery = ARGV[3] == '1'
local event = KEYS[withDelivery and 2 or 1]
if withDelivery and redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if event and not redis.call('SET', event, ARGV[1], 'NX', 'EX', ARGV[2]) then return 2 end
if withDelivery then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 0
`);

/** Compare-and-delete. KEYS: keys to release; ARGV: token. Returns how many were deleted. */
export const RELEASE_WEBHOOK = defineScript(`
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n
`);

/** Options of `createWebhookClaims`. */
export interface WebhookClaimsOptions {
  /** TTL of every claim, seconds (`store.key_ttl_seconds`). */
  ttlSeconds: number;
  /** Longest wait for one store call, ms. Default `CLAIM_TIMEOUT_MS`. */
  timeoutMs?: number;
}

/** Connection states in which a command is sent or queued until the connection is up. */
const USABLE = new Set(['wait', 'connecting', 'connect', 'ready']);

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`the store did not answer within ${ms} ms`);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(ms)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Webhook claims on `redis` (a connection of the caller's, which it closes). A connection that is
 * reconnecting after a failure answers `unavailable` at once rather than after `timeoutMs`.
 */
export function createWebhookClaims(redis: Redis, options: WebhookClaimsOptions): SharedDedupe {
  const timeoutMs = options.timeoutMs ?? CLAIM_TIMEOUT_MS;
  const ttl = String(options.ttlSeconds);
  async function call(keys: string[], script: LuaScript, args: string[]): Promise<unknown> {
    if (!USABLE.has(redis.status)) throw new Error(`the store connection is ${redis.status}`);
    return withTimeout(runScript(redis, script, keys, args), timeoutMs);
  }
  return {
    async claim(request: SharedClaimRequest): Promise<SharedClaim> {
      const delivery =
        request.deliveryId === undefined ? undefined : deliveryKey(request.platform, request.deliveryId);
      const event = request.identity === undefined ? undefined : eventKey(request.identity);
      const keys = [delivery, event].filter((key) => key !== undefined);
      const token = randomBytes(16).toString('hex');
      let answer: unknown = 0;
      try {
        if (keys.length > 0) answer = await call(keys, CLAIM_WEBHOOK, [token, ttl, delivery ? '1' : '0']);
      } catch (error) {
        return { status: 'unavailable', error: error instanceof Error ? error.message : String(error) };
      }
      if (answer === 1) return { status: 'duplicate delivery' };
      if (answer === 2) return { status: 'duplicate event' };
      return {
        status: 'claimed',
        async release(what) {
          const released = what === 'all' ? keys : event ? [event] : [];
          if (released.length > 0) await call(released, RELEASE_WEBHOOK, [token]);
        },
      };
    },
  };
}

/** Options of `connectWebhookClaims`. */
export interface ConnectWebhookClaimsOptions extends WebhookClaimsOptions {
  logger: Logger;
  masker: SecretMasker;
}

/** Webhook claims on a connection of their own, with the means to close it. */
export interface WebhookClaimsConnection extends SharedDedupe {
  close(): void;
}

/**
 * Opens a connection to `url` (`store.url`) for webhook claims. Commands sent while it is not up
 * yet (start-up) wait for it, up to `timeoutMs`; after a lost connection, waiting commands fail at
 * each reconnection attempt instead of piling up. Connection errors are logged as warnings, with
 * secrets masked.
 */
export function connectWebhookClaims(
  url: string,
  options: ConnectWebhookClaimsOptions,
): WebhookClaimsConnection {
  const timeoutMs = options.timeoutMs ?? CLAIM_TIMEOUT_MS;
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    enableReadyCheck: true,
  });
  redis.on('error', (error: Error) =>
    options.logger.warn(
      { role: 'webhook-claims', err: options.masker.mask(error.message) },
      'store connection error',
    ),
  );
  const claims = createWebhookClaims(redis, { ...options, timeoutMs });
  return { claim: (request) => claims.claim(request), close: () => redis.disconnect() };
}
