/**
 * The webhook HTTP server (CONTRACT §5): `GET /health`, `GET /metrics`, `POST /webhooks/:platform`.
 * Wiring only: verification and parsing belong to each platform's webhook handler, decisions and
 * queueing to the dispatcher.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { describeError } from '../errors.js';
import { createMemoryRelief } from './memory-relief.js';
import { readBody } from './read-body.js';
import type { CreateServerOptions } from './types.js';
import { registerWebhookRoute } from './webhook-route.js';

/** Default body limit: 25 MiB, GitHub's cap on webhook payloads ("Webhook events and payloads"). */
export const DEFAULT_BODY_LIMIT_BYTES = 25 * 1024 * 1024;
/** Default number of delivery ids remembered for de-duplication. */
export const DEFAULT_DEDUPE_CAPACITY = 10_000;
/** A request must arrive completely within this many ms (slow-client guard; 25 MiB needs ≥ 0.5 MB/s). */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Builds the server; it is not listening yet: the caller runs `listen({ port, host })` and, on
 * shutdown, `close()` (which stops accepting and answers 503 to requests still arriving).
 * Fastify's own logging is off; the server logs one line per webhook through
 * `options.logger`. Every content type is read as a raw Buffer (`readBody`) so signatures are
 * checked on the exact bytes. Errors: 404 `{"error":"not found"}` for other routes; 5xx answers carry no detail.
 * @throws RangeError when `dedupeCapacity` is not a positive integer.
 */
export function createServer(options: CreateServerOptions): FastifyInstance {
  const resolved = {
    ...options,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    dedupeCapacity: options.dedupeCapacity ?? DEFAULT_DEDUPE_CAPACITY,
  };
  const { metrics, logger } = resolved;
  const app = Fastify({
    // No fastify logger at all (hence no per-request child logger or request lines).
    logger: false,
    bodyLimit: resolved.bodyLimitBytes,
    requestTimeout: REQUEST_TIMEOUT_MS,
  });

  app.removeAllContentTypeParsers();
  // Memory comes back after large bodies (see `memory-relief.ts`).
  const relief = createMemoryRelief();
  app.addHook('onClose', (_instance, done) => {
    relief.close();
    done();
  });
  // Each chunk is copied into one Buffer of the declared length as it arrives (see `read-body.ts`).
  app.addContentTypeParser('*', (_request: FastifyRequest, payload: IncomingMessage) =>
    readBody(payload, resolved.bodyLimitBytes, relief.noteChunk),
  );

  const { isWebhookPlatform } = registerWebhookRoute(app, resolved, relief);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    const platform = (request.params as { platform?: unknown } | undefined)?.platform;
    if (status === 413) {
      // A streamed body over the limit was read up to the limit before this answer.
      relief.noteBody(resolved.bodyLimitBytes);
      if (typeof platform === 'string' && isWebhookPlatform(platform)) metrics.webhook(platform, 'too_large');
      logger.warn({ platform, url: request.url }, 'webhook too large');
      return reply.header('connection', 'close').code(413).send({ error: 'request body too large' });
    }
    if (status < 500) {
      if (typeof platform === 'string' && isWebhookPlatform(platform))
        metrics.webhook(platform, 'bad_request');
      logger.warn({ url: request.url, status, error: error.message }, 'request rejected');
      return reply.code(status).send({ error: error.message });
    }
    logger.error({ url: request.url, err: describeError(error) }, 'request failed');
    return reply.code(500).send({ error: 'internal error' });
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));

  app.get('/health', (_request, reply) => reply.send({ status: 'ok' }));

  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });

  return app;
}
