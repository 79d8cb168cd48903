/**
 * Signs webhook bodies the way GitHub does (its "Validating webhook deliveries" page), for tests
 * that send webhooks to the server: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`.
 */
import { createHmac } from 'node:crypto';

/**
 * The `X-Hub-Signature-256` header value for `body` (the exact bytes sent; a string is taken as
 * UTF-8) under `secret`: `sha256=` followed by 64 lowercase hex digits.
 */
export function signGitHubWebhook(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
