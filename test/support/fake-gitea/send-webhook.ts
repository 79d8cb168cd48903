/**
 * Delivers a webhook the way Gitea and Forgejo do (`services/webhook/deliver.go`,
 * `newDefaultRequest` and `addDefaultHeaders`): `POST` with the payload as Gitea serialises it
 * (`json.MarshalIndent(payload, "", "  ")`), as `application/json` or as the `payload` field of an
 * `application/x-www-form-urlencoded` body, and the headers `X-Gitea-Delivery`, `X-Gitea-Event`,
 * `X-Gitea-Event-Type`, `X-Gitea-Signature` (hex HMAC-SHA256 of the JSON payload, no prefix), their
 * `X-Gogs-*` twins, `X-Hub-Signature`/`X-Hub-Signature-256`, `X-GitHub-*`; Forgejo adds the
 * `X-Forgejo-*` set.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { GiteaEventNames } from './webhook-payloads.js';

/** The `X-Gitea-Signature` value of `payload` (the JSON text Gitea signed) under `secret`. */
export function signGiteaPayload(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Options of `sendGiteaWebhook`. */
export interface SendGiteaWebhookOptions {
  /** The webhook's secret; no secret → empty signature headers (as Gitea sends them). */
  secret?: string;
  /** Send as Forgejo (also the `X-Forgejo-*` headers). Default false. */
  forgejo?: boolean;
  /** `X-Gitea-Delivery`; a fresh UUID by default. */
  deliveryId?: string;
  /** The webhook's content type. Default `json`. */
  contentType?: 'json' | 'form';
  /** Replaces or removes (undefined value) headers after signing, e.g. a forged signature. */
  headers?: Record<string, string | undefined>;
}

/** A webhook answer. */
export interface GiteaWebhookAnswer {
  status: number;
  json: Record<string, unknown>;
  deliveryId: string;
}

/** The headers Gitea (or Forgejo) sends with a delivery. */
export function giteaHeaders(
  names: GiteaEventNames,
  payload: string,
  options: SendGiteaWebhookOptions & { deliveryId: string },
): Record<string, string> {
  const sha256 = options.secret ? signGiteaPayload(options.secret, payload) : '';
  const sha1 = options.secret ? createHmac('sha1', options.secret).update(payload).digest('hex') : '';
  const id = options.deliveryId;
  const headers: Record<string, string> = {
    'content-type': options.contentType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
    'user-agent': 'Go-http-client/1.1',
  };
  if (options.forgejo) {
    Object.assign(headers, {
      'x-forgejo-delivery': id,
      'x-forgejo-event': names.event,
      'x-forgejo-event-type': names.eventType,
      'x-forgejo-signature': sha256,
    });
  }
  Object.assign(headers, {
    'x-gitea-delivery': id,
    'x-gitea-event': names.event,
    'x-gitea-event-type': names.eventType,
    'x-gitea-signature': sha256,
    'x-gogs-delivery': id,
    'x-gogs-event': names.event,
    'x-gogs-event-type': names.eventType,
    'x-gogs-signature': sha256,
    'x-hub-signature': `sha1=${sha1}`,
    'x-hub-signature-256': `sha256=${sha256}`,
    'x-github-delivery': id,
    'x-github-event': names.event,
    'x-github-event-type': names.eventType,
  });
  return headers;
}

/**
 * Posts `payload` to `url` (e.g. `<server>/webhooks/gitea`) as Gitea delivers the event `names`;
 * returns the status, the JSON answer and the delivery id.
 */
export async function sendGiteaWebhook(
  url: string,
  names: GiteaEventNames,
  payload: unknown,
  options: SendGiteaWebhookOptions = {},
): Promise<GiteaWebhookAnswer> {
  const deliveryId = options.deliveryId ?? randomUUID();
  const text = JSON.stringify(payload, null, 2);
  const headers: Record<string, string> = giteaHeaders(names, text, { ...options, deliveryId });
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const body = options.contentType === 'form' ? new URLSearchParams({ payload: text }).toString() : text;
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = await response.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(answer) as Record<string, unknown>;
  } catch {
    json = { raw: answer };
  }
  return { status: response.status, json, deliveryId };
}
