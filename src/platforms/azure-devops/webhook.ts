/**
 * Azure DevOps service-hook verification and parsing (CONTRACT §4–§7). Service hooks send no
 * signature; the subscription is configured with HTTP Basic authentication (Microsoft Learn,
 * "Create a service hook for Azure DevOps with Web Hooks": "Basic authentication username /
 * password"), checked here before anything is parsed: both the user and the password must equal
 * `AZURE_DEVOPS_WEBHOOK_USER` / `AZURE_DEVOPS_WEBHOOK_SECRET`, compared in constant time. The
 * delivery id is the event's `id` (a GUID in the body; retries keep it).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../errors.js';
import type { WebhookHandler, WebhookRequest } from '../types.js';
import { parseAzureWebhook, type BotIdentity } from './webhook-parse.js';
import { isGuid } from './names.js';

/** SHA-256 of `text` (equal-length inputs for `timingSafeEqual`). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The top-level `id` of a delivery's body (a GUID; retries keep it), lower-cased. */
function idOf(rawBody: Buffer): string | undefined {
  try {
    const id = (JSON.parse(rawBody.toString('utf8')) as { id?: unknown } | null)?.id;
    return typeof id === 'string' && isGuid(id) ? id.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the handler for `user`/`secret`; `bot()` is the bot's identity once known (for mentions
 * by id).
 * @throws ConfigError when either is empty.
 */
export function createAzureWebhookHandler(
  user: string,
  secret: string,
  bot: () => BotIdentity | undefined = () => undefined,
): WebhookHandler {
  if (!user || !secret)
    throw new ConfigError(['AZURE_DEVOPS_WEBHOOK_USER / AZURE_DEVOPS_WEBHOOK_SECRET: empty']);
  const wanted = digest(`${user}\u0000${secret}`);
  return {
    verify(request: WebhookRequest) {
      try {
        const auth = request.headers.authorization?.trim() ?? '';
        if (!/^Basic\s+/i.test(auth)) return false;
        const decoded = Buffer.from(auth.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon < 0) return false;
        const given = digest(`${decoded.slice(0, colon)}\u0000${decoded.slice(colon + 1)}`);
        return timingSafeEqual(given, wanted);
      } catch {
        return false;
      }
    },
    deliveryId: (request) => idOf(request.rawBody),
    parse(_request, body) {
      try {
        return parseAzureWebhook(body, bot());
      } catch {
        return { kind: 'ignored', reason: 'unreadable payload' };
      }
    },
  };
}
