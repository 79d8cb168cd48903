/**
 * A webhook handler for platforms that sign deliveries with `X-Hub-Signature: sha256=<hex>`, the
 * HMAC-SHA256 of the raw body keyed with the webhook's secret (Bitbucket Cloud and Data Center:
 * Atlassian, "Manage webhooks"). The signature is checked in constant time against each active
 * secret (rotation) before anything is parsed; the delivery id and the event come from headers the
 * platform names.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../errors.js';
import type { WebhookHandler, WebhookParseResult, WebhookRequest } from './types.js';

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** The trimmed value of header `name` (lowercase), or undefined when missing or blank. */
export function headerOf(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name]?.trim();
  return value ? value : undefined;
}

/** What differs between platforms using `X-Hub-Signature`. */
export interface HubSignatureWebhookOptions {
  /** The variable holding the secret, named in the error when none is set. */
  secretVariable: string;
  /** Header naming the delivery (lowercase), e.g. `x-request-uuid`. */
  deliveryHeader: string;
  /** Parses a verified body; `event` is `X-Event-Key`. Throwing means "unreadable payload". */
  parse(event: string | undefined, deliveryId: string, body: Record<string, unknown>): WebhookParseResult;
}

/**
 * Creates the handler for `secrets` (any of them verifies a delivery).
 * @throws ConfigError when `secrets` holds no non-empty secret.
 */
export function createHubSignatureWebhookHandler(
  secrets: readonly string[],
  options: HubSignatureWebhookOptions,
): WebhookHandler {
  const keys = secrets.filter((secret) => secret.length > 0);
  if (keys.length === 0) throw new ConfigError([`${options.secretVariable}: empty`]);
  const deliveryOf = (request: WebhookRequest) => headerOf(request, options.deliveryHeader);
  return {
    verify(request) {
      try {
        const match = SIGNATURE.exec(headerOf(request, 'x-hub-signature') ?? '');
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
        return options.parse(headerOf(request, 'x-event-key'), deliveryOf(request) ?? '', body);
      } catch {
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
