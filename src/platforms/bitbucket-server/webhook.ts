/**
 * Bitbucket Data Center webhook verification and parsing (CONTRACT §4–§7). A webhook with a secret
 * (Atlassian, "Manage webhooks": "Secret") signs each delivery with `X-Hub-Signature:
 * sha256=<hex>`, the HMAC-SHA256 of the raw body keyed with the secret; checked in constant time
 * before anything is parsed, against each active secret (rotation). `X-Request-Id` names the
 * delivery; `X-Event-Key` the event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import type { WebhookHandler, WebhookRequest } from '../types.js';
import { parseBitbucketServerWebhook } from './webhook-parse.js';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

function header(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name]?.trim();
  return value ? value : undefined;
}

/**
 * Creates the handler for `secrets` (any of them verifies a delivery).
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createBitbucketServerWebhookHandler(secrets: readonly string[]): WebhookHandler {
  const keys = secrets.filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new ConfigError(['BITBUCKET_SERVER_WEBHOOK_SECRET: empty']);
  const deliveryOf = (request: WebhookRequest) => header(request, 'x-request-id');
  return {
    verify(request) {
      try {
        const match = SIGNATURE.exec(header(request, 'x-hub-signature') ?? '');
        if (!match?.[1]) return false;
        const given = Buffer.from(match[1], 'hex');
        let ok = false;
        for (const key of keys) {
          ok = timingSafeEqual(createHmac('sha256', key).update(request.rawBody).digest(), given) || ok;
        }
        return ok;
      } catch {
        return false;
      }
    },
    deliveryId: deliveryOf,
    parse(request, body) {
      try {
        return parseBitbucketServerWebhook(header(request, 'x-event-key'), deliveryOf(request) ?? '', body);
      } catch {
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
