/**
 * `POST /webhooks/:platform` (CONTRACT §5), in the contract's order: body over the limit → 413
 * (declared length before reading, streamed length while reading); unknown platform or one without
 * a webhook secret → 404; signature check on the raw bytes → 401; JSON object → else 400; delivery
 * id seen before → 200 ignored "duplicate delivery"; parse → 200 ignored; the same event seen
 * before under another delivery id (`eventIdentity`) → 200 ignored "duplicate event"; dispatch → 200.
 * "Seen before" is this process's memory first, then, for an event, the store shared by every
 * replica (`sharedDedupe`, one round trip; see `shared-claim.ts`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { describeError } from '../errors.js';
import type { Platform, WebhookHandler, WebhookRequest } from '../platforms/types.js';
import { decodeWebhookBody } from './decode-body.js';
import { createDeliveryCache } from './delivery-cache.js';
import { eventIdentity } from './event-identity.js';
import type { MemoryRelief } from './memory-relief.js';
import { createSharedClaimer, releaseShared } from './shared-claim.js';
import type { CreateServerOptions, SharedClaim } from './types.js';

interface WebhookRoute {
  Params: { platform: string };
}

interface Receiver {
  platform: Platform;
  handler: WebhookHandler;
}

const EMPTY = Buffer.alloc(0);

/** Node joins repeated headers except a few (e.g. `set-cookie`); flatten those too. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function tooLarge(reply: FastifyReply): FastifyReply {
  // The client is still sending the body we will not read: close the connection after answering.
  return reply.header('connection', 'close').code(413).send({ error: 'request body too large' });
}

/** Options of `registerWebhookRoute`: the server options with their defaults applied. */
export type WebhookRouteOptions = Required<Omit<CreateServerOptions, 'sharedDedupe'>> &
  Pick<CreateServerOptions, 'sharedDedupe'>;

/**
 * Registers `POST /webhooks/:platform` on `app` for every platform of `options.platforms` that has a
 * webhook handler. Records `metrics.webhook(platform, outcome)` for each answered delivery of a known
 * platform and logs one line per webhook (accepted: info on the delivery's child logger).
 * Each body's size goes to `relief` (large bodies leave garbage a quiet server never collects).
 * Returns `isWebhookPlatform`, for the server's error handler (413 from the streamed body).
 */
export function registerWebhookRoute(
  app: FastifyInstance,
  options: WebhookRouteOptions,
  relief: MemoryRelief,
): { isWebhookPlatform: (name: string) => boolean } {
  const { dispatch, metrics, logger } = options;
  const limit = options.bodyLimitBytes;
  const deliveries = createDeliveryCache(options.dedupeCapacity);
  // Events that started a job (or are being dispatched), by identity: a copy under a new delivery
  // id is the same event. Held apart from the delivery ids so neither evicts the other.
  const events = createDeliveryCache(options.dedupeCapacity);
  const claimShared = createSharedClaimer(options.sharedDedupe, metrics.registry);
  const receivers = new Map<string, Receiver>();
  for (const [name, platform] of options.platforms) {
    if (platform.webhook) receivers.set(name, { platform, handler: platform.webhook });
  }

  function onRequest(request: FastifyRequest<WebhookRoute>, reply: FastifyReply, done: () => void): void {
    const name = request.params.platform;
    const known = receivers.has(name);
    if (Number(request.headers['content-length']) > limit) {
      if (known) metrics.webhook(name, 'too_large');
      logger.warn({ platform: name, contentLength: request.headers['content-length'] }, 'webhook too large');
      tooLarge(reply);
      return;
    }
    if (!known) {
      reply.code(404).send({ error: 'unknown platform' });
      return;
    }
    done();
  }

  async function handle(request: FastifyRequest<WebhookRoute>, reply: FastifyReply): Promise<FastifyReply> {
    const name = request.params.platform;
    const receiver = receivers.get(name);
    if (!receiver) return reply.code(404).send({ error: 'unknown platform' });
    const rawBody = Buffer.isBuffer(request.body) ? request.body : EMPTY;
    relief.noteBody(rawBody.length);
    const webhookRequest: WebhookRequest = { headers: flatHeaders(request.headers), rawBody };
    const { handler } = receiver;

    if (!handler.verify(webhookRequest)) {
      metrics.webhook(name, 'unauthorized');
      logger.warn({ platform: name, ip: request.ip }, 'webhook signature verification failed');
      return reply.code(401).send({ error: 'signature verification failed' });
    }
    const decoded = decodeWebhookBody(webhookRequest.headers['content-type'], rawBody);
    if (!decoded.ok) {
      metrics.webhook(name, 'bad_request');
      logger.warn({ platform: name, reason: decoded.error }, 'webhook body rejected');
      return reply.code(400).send({ error: decoded.error });
    }
    const deliveryId = handler.deliveryId(webhookRequest);
    if (deliveryId !== undefined && deliveries.seen(deliveryId)) {
      metrics.webhook(name, 'duplicate');
      logger.debug({ platform: name, deliveryId }, 'webhook ignored: duplicate delivery');
      return reply.code(200).send({ status: 'ignored', reason: 'duplicate delivery' });
    }

    let identity: string | undefined;
    let shared: Extract<SharedClaim, { status: 'claimed' }> | undefined;
    try {
      const parsed = handler.parse(webhookRequest, decoded.value);
      if (parsed.kind === 'ignored') {
        metrics.webhook(name, 'ignored');
        logger.debug({ platform: name, deliveryId, reason: parsed.reason }, 'webhook ignored');
        return reply.code(200).send({ status: 'ignored', reason: parsed.reason });
      }
      const { comment } = parsed;
      const log = logger.child({
        deliveryId: deliveryId ?? comment.deliveryId,
        platform: name,
        repo: comment.repoFullName,
        pr: comment.prNumber,
      });
      // Claimed before dispatching (a copy arriving meanwhile is a duplicate); kept only when a job
      // was accepted, so an event ignored for now (e.g. the queue was full) may come again.
      identity = eventIdentity(comment);
      if (identity !== undefined && events.seen(identity)) {
        identity = undefined;
        metrics.webhook(name, 'duplicate');
        log.debug({ eventType: comment.eventType }, 'webhook ignored: duplicate event');
        return reply.code(200).send({ status: 'ignored', reason: 'duplicate event' });
      }
      const claim = await claimShared({ platform: receiver.platform.name, deliveryId, identity }, log);
      if (claim?.status === 'duplicate delivery' || claim?.status === 'duplicate event') {
        // Another replica holds it: this process remembers only the events it claimed itself.
        if (identity !== undefined) events.forget(identity);
        identity = undefined;
        metrics.webhook(name, 'duplicate');
        log.debug({ eventType: comment.eventType, seenBy: 'store' }, `webhook ignored: ${claim.status}`);
        return reply.code(200).send({ status: 'ignored', reason: claim.status });
      }
      if (claim?.status === 'claimed') shared = claim;
      const outcome = await dispatch(receiver.platform, comment, log);
      metrics.webhook(name, outcome.status);
      if (outcome.status === 'accepted') {
        log.info(
          { eventType: comment.eventType, commentType: comment.commentType, author: comment.authorUsername },
          'webhook accepted',
        );
        return reply.code(200).send({ status: 'accepted' });
      }
      if (identity !== undefined) events.forget(identity);
      await releaseShared(shared, 'event', log);
      log.debug({ reason: outcome.reason }, 'webhook ignored');
      return reply.code(200).send({ status: 'ignored', reason: outcome.reason });
    } catch (error) {
      // A bug in parse/dispatch: let a redelivery of this id be processed again.
      if (deliveryId !== undefined) deliveries.forget(deliveryId);
      if (identity !== undefined) events.forget(identity);
      await releaseShared(shared, 'all', logger.child({ platform: name, deliveryId }));
      logger.error({ platform: name, deliveryId, err: describeError(error) }, 'webhook dispatch failed');
      return reply.code(500).send({ error: 'internal error' });
    }
  }

  app.route<WebhookRoute>({
    method: 'POST',
    url: '/webhooks/:platform',
    bodyLimit: limit,
    onRequest,
    handler: handle,
  });
  return { isWebhookPlatform: (name) => receivers.has(name) };
}
