/**
 * The one retry policy of every platform API call (the six clients send through
 * `createPlatformFetch`, which asks `decideRetry` after each failed attempt). Pure: the clock is an
 * argument.
 *
 * What is retried: 429 on any method (the server refused the request before acting on it,
 * RFC 6585 §4); 500, 502, 503 and 504 and network failures (refused or reset connection, a timed-out
 * attempt) only on idempotent methods (RFC 9110 §9.2.2: GET, HEAD, PUT, DELETE, OPTIONS), because a
 * POST or PATCH may already have been applied. A host name that does not resolve (`ENOTFOUND`) is
 * not retried: it is a typo or a missing network, and waiting does not change it.
 */

/** Numbers of the policy. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3). */
  attempts: number;
  /** Wait before the first retry when the answer names none, ms (default 500; doubles per retry). */
  baseDelayMs: number;
  /**
   * Longest wait, ms (default 30 000). A `Retry-After` asking for longer fails the call at once
   * instead of holding the review that long.
   */
  maxDelayMs: number;
}

/** The default policy: 3 attempts, 0.5 s then 1 s backoff, waits up to 30 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  attempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Methods whose repetition has the effect of one request (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Statuses worth another attempt: the server was overloaded, down or behind a failing gateway. */
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);

/** True when `method` (any case) is idempotent. */
export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/**
 * The wait a `Retry-After` value asks for, ms (RFC 9110 §10.2.3): delay-seconds (`120`) or an
 * HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, and the obsolete RFC 850 and asctime forms, read as
 * GMT). A date in the past gives 0. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // asctime (`Sun Nov  6 08:49:37 1994`) carries no zone; HTTP dates are always GMT.
  const dated = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$/.test(text) ? `${text} GMT` : text;
  if (!/GMT$/.test(dated)) return undefined;
  const at = Date.parse(dated);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** What went wrong with one attempt. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfter: string | null }
  /** No answer: `code` is the system or undici error code (`ECONNREFUSED`, `ENOTFOUND`, …) or `TIMEOUT`. */
  | { kind: 'network'; code: string | undefined };

/** The decision after a failed attempt. */
export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; why: 'permanent' | 'not-idempotent' | 'attempts' | 'wait-too-long'; delayMs?: number };

/**
 * Whether to try again after attempt number `attempt` (1 = the first) of a `method` request failed
 * with `failure`, and after how long. `replayable` is false when the request body cannot be sent
 * twice (a stream): then nothing is retried.
 */
export function decideRetry(input: {
  policy: RetryPolicy;
  attempt: number;
  method: string;
  replayable: boolean;
  failure: AttemptFailure;
  now: number;
}): RetryDecision {
  const { policy, attempt, failure } = input;
  if (failure.kind === 'status') {
    if (failure.status !== 429 && !TRANSIENT_STATUS.has(failure.status))
      return { retry: false, why: 'permanent' };
  } else if (failure.code === 'ENOTFOUND') {
    return { retry: false, why: 'permanent' };
  }
  const refused = failure.kind === 'status' && failure.status === 429;
  if (!input.replayable || (!refused && !isIdempotent(input.method))) {
    return { retry: false, why: 'not-idempotent' };
  }
  if (attempt >= policy.attempts) return { retry: false, why: 'attempts' };
  const asked = failure.kind === 'status' ? parseRetryAfter(failure.retryAfter, input.now) : undefined;
  if (asked !== undefined && asked > policy.maxDelayMs)
    return { retry: false, why: 'wait-too-long', delayMs: asked };
  const delayMs = asked ?? Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return { retry: true, delayMs };
}

/**
 * Whether a client that handles rate limits itself (Octokit's throttling plugin) may retry after
 * `retryCount` retries so far, waiting `waitMs`: the same attempts and cap as `decideRetry`.
 */
export function allowsRateLimitRetry(policy: RetryPolicy, retryCount: number, waitMs: number): boolean {
  return retryCount + 1 < policy.attempts && waitMs <= policy.maxDelayMs;
}
