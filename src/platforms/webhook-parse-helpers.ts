/**
 * Helpers shared by the platforms' webhook parsers: an "ignored" result, and zod validation that
 * turns a failure into an ignored result naming the first bad field (never a throw).
 */
import type { z } from 'zod';
import type { WebhookParseResult } from './types.js';

/** An ignored webhook with its reason. */
export function ignored(reason: string): WebhookParseResult {
  return { kind: 'ignored', reason };
}

/**
 * Validates `body` with `schema`; on failure an ignored result naming the first bad field and, for
 * the platforms' own naming rules (custom checks), the rule it breaks (`… is invalid: not a GitHub
 * owner/repo name`). The offending value itself is never echoed: it is untrusted.
 */
export function checkPayload<T>(
  schema: z.ZodType<T>,
  event: string,
  body: Record<string, unknown>,
): { ok: true; data: T } | { ok: false; result: WebhookParseResult } {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'payload';
  const why =
    issue?.code === 'custom' || issue?.code === 'invalid_format'
      ? `invalid: ${issue.message}`
      : 'missing or invalid';
  return { ok: false, result: ignored(`malformed ${event} payload: ${where} is ${why}`) };
}
