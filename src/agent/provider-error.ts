/** Turns whatever the AI SDK reports for a failed model call into a short, secret-free `AgentError`. */
import { APICallError, RetryError } from 'ai';
import { AgentError } from '../errors.js';
import type { SecretMasker } from '../secrets.js';

/** Longest provider message kept in an `AgentError`, characters. */
const MAX_DETAIL_CHARS = 300;

/**
 * Describes `error` (an `APICallError`, a `RetryError` wrapping one, an abort or anything else)
 * in one line, e.g. `LLM provider anthropic returned 401: invalid x-api-key` or
 * `could not reach LLM provider openai: fetch failed`. Secrets of `masker` are masked.
 */
export function describeProviderError(provider: string, error: unknown, masker: SecretMasker): string {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  let text: string;
  if (isAbort(cause)) {
    text = 'agent run aborted';
  } else if (APICallError.isInstance(cause)) {
    text =
      cause.statusCode === undefined
        ? `could not reach LLM provider ${provider}: ${withCause(cause)}`
        : `LLM provider ${provider} returned ${cause.statusCode}: ${cause.message}`;
  } else if (cause instanceof Error) {
    text = `LLM provider ${provider} call failed: ${withCause(cause)}`;
  } else {
    text = `LLM provider ${provider} call failed: ${String(cause)}`;
  }
  return masker.mask(oneLine(text));
}

/** `describeProviderError` wrapped in an `AgentError` whose cause is dropped (it may hold request data). */
export function providerAgentError(provider: string, error: unknown, masker: SecretMasker): AgentError {
  return new AgentError(describeProviderError(provider, error, masker));
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function withCause(error: Error): string {
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS)}…` : flat;
}
