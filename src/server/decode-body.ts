/**
 * Decoding of a verified webhook body. GitHub sends the payload either as `application/json` or as
 * `application/x-www-form-urlencoded` with the JSON in the `payload` field (the webhook's "Content
 * type" setting), and so can Gitea. Runs only on a verified body. The form field is the one the
 * Gitea signature check hashed (`formPayload`, read from the bytes without `URLSearchParams`).
 */
import { formPayload } from '../platforms/webhook-form.js';

/** A decoded body: the JSON object, or why it is not one (for the 400 answer). */
export type DecodedBody = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * Decodes `rawBody` (UTF-8) by `contentType`: form-encoded → the `payload` field, anything else →
 * the whole body; then JSON. Never throws.
 */
export function decodeWebhookBody(contentType: string | undefined, rawBody: Buffer): DecodedBody {
  let text: string;
  if (contentType !== undefined && /^\s*application\/x-www-form-urlencoded\b/i.test(contentType)) {
    const payload = formPayload(rawBody);
    if (payload === undefined) return { ok: false, error: 'form body without a payload field' };
    text = payload.toString('utf8');
  } else {
    text = rawBody.toString('utf8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'body is not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'body is not a JSON object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
