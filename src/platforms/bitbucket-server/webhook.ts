/**
 * Bitbucket Data Center webhook verification and parsing (CONTRACT §4–§7). A webhook with a secret
 * (Atlassian, "Manage webhooks": "Secret") signs each delivery with `X-Hub-Signature:
 * sha256=<hex>`, the HMAC-SHA256 of the raw body keyed with the secret; checked in constant time
 * before anything is parsed, against each active secret (rotation). `X-Request-Id` names the
 * delivery; `X-Event-Key` the event.
 */
import { createHubSignatureWebhookHandler } from '../hub-signature-webhook.js';
import type { WebhookHandler } from '../types.js';
import { parseBitbucketServerWebhook } from './webhook-parse.js';

/**
 * Creates the handler for `secrets` (any of them verifies a delivery).
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createBitbucketServerWebhookHandler(secrets: readonly string[]): WebhookHandler {
  return createHubSignatureWebhookHandler(secrets, {
    secretVariable: 'BITBUCKET_SERVER_WEBHOOK_SECRET',
    deliveryHeader: 'x-request-id',
    parse: parseBitbucketServerWebhook,
  });
}
