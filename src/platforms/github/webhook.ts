/**
 * GitHub webhook verification and parsing (CONTRACT §4–§7). Verification follows GitHub's
 * "Validating webhook deliveries": `X-Hub-Signature-256: sha256=<hex>` is the HMAC-SHA256 of the
 * exact raw body keyed with the webhook secret; compared in constant time. Several secrets may be
 * active at once (rotation), as in `@octokit/webhooks`' `additionalSecrets`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import type { WebhookHandler, WebhookRequest } from '../types.js';
import { parseGitHubWebhook } from './webhook-parse.js';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
/** Length of an HMAC-SHA256 digest in bytes. */
const DIGEST_BYTES = 32;

/**
 * Splits a webhook secret setting into its secrets: the value may be a comma-separated list
 * (rotation: the new secret and the old one). Blank entries are dropped; each entry is trimmed.
 * @throws ConfigError when no secret remains (e.g. the value is only commas).
 */
export function splitWebhookSecrets(value: string): string[] {
  const secrets = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (secrets.length === 0) {
    throw new ConfigError(['CODEHOST_WEBHOOK_SECRET: no secret in the comma-separated list']);
  }
  return secrets;
}

/** True when `header` is `sha256=<hex>` matching the HMAC-SHA256 of `body` under one of `keys`. */
function signatureMatches(header: string | undefined, body: Buffer, keys: readonly string[]): boolean {
  if (header === undefined) return false;
  const match = SIGNATURE.exec(header);
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1], 'hex');
  if (given.length !== DIGEST_BYTES) return false;
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(body).digest();
    if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
  }
  return false;
}

/**
 * Creates the GitHub webhook handler for `secrets` (one or more; any of them verifies a delivery).
 * - `verify`: the `x-hub-signature-256` header against the raw body; false on a missing, malformed,
 *   wrong-length or wrong signature; never throws.
 * - `deliveryId`: the `x-github-delivery` header (a GUID), when present.
 * - `parse`: `parseGitHubWebhook` with the `x-github-event` header.
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createGitHubWebhookHandler(secrets: readonly string[]): WebhookHandler {
  const keys = secrets.filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new ConfigError(['CODEHOST_WEBHOOK_SECRET: empty']);
  return {
    verify(request: WebhookRequest): boolean {
      try {
        return signatureMatches(request.headers['x-hub-signature-256'], request.rawBody, keys);
      } catch {
        return false;
      }
    },
    deliveryId(request: WebhookRequest): string | undefined {
      const id = request.headers['x-github-delivery']?.trim();
      return id ? id : undefined;
    },
    parse(request: WebhookRequest, body: Record<string, unknown>) {
      try {
        const deliveryId = request.headers['x-github-delivery']?.trim() ?? '';
        return parseGitHubWebhook(request.headers['x-github-event']?.trim(), deliveryId, body);
      } catch {
        // The parser validates everything it reads; this is a last resort, never expected.
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
