/**
 * GitLab webhook verification and parsing (CONTRACT §4–§7). GitLab does not sign deliveries: it
 * sends the webhook's "Secret token" verbatim in `X-Gitlab-Token` (GitLab docs, "Webhooks" →
 * "Validate requests with a secret token"). The header is compared with each configured secret in
 * constant time (SHA-256 digests of both, so neither the length nor a prefix leaks through timing).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import type { WebhookHandler, WebhookRequest } from '../types.js';
import { parseGitLabWebhook } from './webhook-parse.js';

/**
 * Splits `GITLAB_WEBHOOK_SECRET` into its secrets: a comma-separated list while rotating (the new
 * token and the old one), like `CODEHOST_WEBHOOK_SECRET`. Entries are trimmed, blanks dropped.
 * @throws ConfigError when no secret remains.
 */
export function splitGitLabSecrets(value: string): string[] {
  const secrets = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (secrets.length === 0)
    throw new ConfigError(['GITLAB_WEBHOOK_SECRET: no secret in the comma-separated list']);
  return secrets;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Creates the GitLab webhook handler for `secrets` (any of them verifies a delivery):
 * - `verify`: `x-gitlab-token` equals one of the secrets (constant time); false when missing;
 * - `deliveryId`: `x-gitlab-event-uuid` (one UUID per delivery), when present;
 * - `parse`: `parseGitLabWebhook` with the `x-gitlab-event` header.
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createGitLabWebhookHandler(secrets: readonly string[]): WebhookHandler {
  const digests = secrets.filter((secret) => secret.length > 0).map(digest);
  if (digests.length === 0) throw new ConfigError(['GITLAB_WEBHOOK_SECRET: empty']);
  return {
    verify(request: WebhookRequest): boolean {
      const token = request.headers['x-gitlab-token'];
      if (typeof token !== 'string' || token.length === 0) return false;
      const given = digest(token);
      let ok = false;
      for (const expected of digests) ok = timingSafeEqual(given, expected) || ok;
      return ok;
    },
    deliveryId(request: WebhookRequest): string | undefined {
      const id = request.headers['x-gitlab-event-uuid']?.trim();
      return id ? id : undefined;
    },
    parse(request: WebhookRequest, body: Record<string, unknown>) {
      try {
        const deliveryId = request.headers['x-gitlab-event-uuid']?.trim() ?? '';
        return parseGitLabWebhook(request.headers['x-gitlab-event']?.trim(), deliveryId, body);
      } catch {
        // The parser validates everything it reads; this is a last resort, never expected.
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
