/**
 * Gitea/Forgejo webhook verification and parsing (CONTRACT §4–§7). Verification follows Gitea's
 * `services/webhook/deliver.go` (`addDefaultHeaders`): `X-Gitea-Signature` is the lowercase hex
 * HMAC-SHA256, without prefix, of the payload keyed with the webhook's secret; Forgejo sends the
 * same value as `X-Forgejo-Signature` too. The payload is the JSON text: the whole body for content
 * type `application/json`, the `payload` field of a `application/x-www-form-urlencoded` body
 * (Gitea signs the JSON, not the form encoding). Nothing is parsed before the check: the headers
 * must hold well-formed signatures first, and the form's field is found and decoded straight into
 * the HMAC (`webhook-form.ts`), never turned into strings. Compared in constant time; several
 * secrets may be active at once (rotation).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import type { WebhookHandler, WebhookRequest } from '../types.js';
import { decodeFormValue, findFormPayload } from '../webhook-form.js';
import { parseGiteaWebhook } from './webhook-parse.js';

const SIGNATURE = /^[0-9a-fA-F]{64}$/;
const FORM = /^\s*application\/x-www-form-urlencoded\b/i;

/**
 * The HMAC-SHA256 of what Gitea signed under each of `keys`: the body, or the decoded `payload`
 * field of a form body (undefined when a form has none). Hashes the bytes once per key.
 */
function signedDigests(request: WebhookRequest, keys: readonly string[]): Buffer[] | undefined {
  const hmacs = keys.map((key) => createHmac('sha256', key));
  const type = request.headers['content-type'];
  if (type === undefined || !FORM.test(type)) {
    for (const hmac of hmacs) hmac.update(request.rawBody);
  } else {
    const range = findFormPayload(request.rawBody);
    if (!range) return undefined;
    decodeFormValue(request.rawBody, range, (piece) => {
      for (const hmac of hmacs) hmac.update(piece);
    });
  }
  return hmacs.map((hmac) => hmac.digest());
}

/** True when hex `signature` (already checked well-formed) equals one of `digests`. */
function matches(signature: string, digests: readonly Buffer[]): boolean {
  const given = Buffer.from(signature, 'hex');
  let ok = false;
  for (const digest of digests) ok = timingSafeEqual(digest, given) || ok;
  return ok;
}

/** A header's trimmed value, or undefined when absent or blank. */
function header(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name]?.trim();
  return value ? value : undefined;
}

/**
 * Creates the Gitea (and Forgejo) webhook handler for `secrets` (any of them verifies a delivery):
 * - `verify`: `x-gitea-signature` and/or `x-forgejo-signature` (at least one; each one sent must
 *   be 64 hex digits, checked before the body is read, and match) against the signed payload; false
 *   on a missing, malformed or wrong signature or a form without a `payload` field; never throws;
 * - `deliveryId`: `x-gitea-delivery` (else `x-forgejo-delivery`), a UUID per delivery;
 * - `parse`: `parseGiteaWebhook` with `x-gitea-event`/`x-gitea-event-type` (else Forgejo's).
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createGiteaWebhookHandler(secrets: readonly string[]): WebhookHandler {
  const keys = secrets.filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new ConfigError(['GITEA_WEBHOOK_SECRET: empty']);
  const deliveryOf = (request: WebhookRequest) =>
    header(request, 'x-gitea-delivery') ?? header(request, 'x-forgejo-delivery');
  return {
    verify(request: WebhookRequest): boolean {
      try {
        const sent = [header(request, 'x-gitea-signature'), header(request, 'x-forgejo-signature')].filter(
          (value): value is string => value !== undefined,
        );
        if (sent.length === 0 || !sent.every((signature) => SIGNATURE.test(signature))) return false;
        const digests = signedDigests(request, keys);
        if (digests === undefined) return false;
        return sent.every((signature) => matches(signature, digests));
      } catch {
        return false;
      }
    },
    deliveryId: deliveryOf,
    parse(request: WebhookRequest, body: Record<string, unknown>) {
      try {
        const event = header(request, 'x-gitea-event') ?? header(request, 'x-forgejo-event');
        const eventType = header(request, 'x-gitea-event-type') ?? header(request, 'x-forgejo-event-type');
        return parseGiteaWebhook({ event, eventType }, deliveryOf(request) ?? '', body);
      } catch {
        // The parser validates everything it reads; this is a last resort, never expected.
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
