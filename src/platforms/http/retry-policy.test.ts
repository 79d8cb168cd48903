/** The retry policy as a table: what is retried, how long it waits, when it gives up. */
import { describe, expect, it } from 'vitest';
import {
  allowsRateLimitRetry,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type AttemptFailure,
} from './retry-policy.js';

const NOW = Date.parse('2025-10-21T07:28:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Tue, 21 Oct 2025 07:28:02 GMT', 2000],
    // RFC 850 and asctime, the obsolete forms RFC 9110 §5.6.7 says recipients must read.
    ['Tuesday, 21-Oct-25 07:28:05 GMT', 5000],
    ['Tue Oct 21 07:28:03 2025', 3000],
    ['Tue, 21 Oct 2025 07:27:00 GMT', 0],
  ])('%j waits %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([[null], [''], ['soon'], ['-5'], ['1.5'], ['2025-10-21T07:28:02+02:00']])(
    '%j is not a wait',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    },
  );
});

describe('decideRetry', () => {
  const decide = (method: string, failure: AttemptFailure, attempt = 1, replayable = true) =>
    decideRetry({ policy: DEFAULT_RETRY_POLICY, attempt, method, replayable, failure, now: NOW });
  const status = (code: number, retryAfter: string | null = null): AttemptFailure => ({
    kind: 'status',
    status: code,
    retryAfter,
  });

  it.each([
    ['GET', status(503), { retry: true, delayMs: 500 }],
    ['HEAD', status(500), { retry: true, delayMs: 500 }],
    ['PUT', status(502), { retry: true, delayMs: 500 }],
    ['DELETE', status(504), { retry: true, delayMs: 500 }],
    ['OPTIONS', { kind: 'network', code: 'ECONNREFUSED' }, { retry: true, delayMs: 500 }],
    ['GET', { kind: 'network', code: 'TIMEOUT' }, { retry: true, delayMs: 500 }],
    ['POST', status(429), { retry: true, delayMs: 500 }],
    ['GET', status(503, 'Tue, 21 Oct 2025 07:28:02 GMT'), { retry: true, delayMs: 2000 }],
    ['PATCH', status(429, '3'), { retry: true, delayMs: 3000 }],
    ['POST', status(503), { retry: false, why: 'not-idempotent' }],
    ['PATCH', status(500), { retry: false, why: 'not-idempotent' }],
    ['POST', { kind: 'network', code: 'ECONNRESET' }, { retry: false, why: 'not-idempotent' }],
    ['GET', { kind: 'network', code: 'ENOTFOUND' }, { retry: false, why: 'permanent' }],
    ['GET', status(404), { retry: false, why: 'permanent' }],
    ['GET', status(501), { retry: false, why: 'permanent' }],
    ['GET', status(503, '31'), { retry: false, why: 'wait-too-long', delayMs: 31_000 }],
    [
      'GET',
      status(429, 'Tue, 21 Oct 2025 08:28:00 GMT'),
      { retry: false, why: 'wait-too-long', delayMs: 3_600_000 },
    ],
  ] as const)('%s answered %j: %j', (method, failure, decision) => {
    expect(decide(method, failure)).toEqual(decision);
  });

  it('backs off 0.5 s then 1 s, and stops after the third attempt', () => {
    expect(decide('GET', status(503), 1)).toEqual({ retry: true, delayMs: 500 });
    expect(decide('GET', status(503), 2)).toEqual({ retry: true, delayMs: 1000 });
    expect(decide('GET', status(503), 3)).toEqual({ retry: false, why: 'attempts' });
  });

  it('never repeats a body it cannot send twice', () => {
    expect(decide('PUT', status(503), 1, false)).toEqual({ retry: false, why: 'not-idempotent' });
  });

  it('lets a client that waits out rate limits itself use the same attempts and cap', () => {
    expect(allowsRateLimitRetry(DEFAULT_RETRY_POLICY, 0, 30_000)).toBe(true);
    expect(allowsRateLimitRetry(DEFAULT_RETRY_POLICY, 0, 30_001)).toBe(false);
    expect(allowsRateLimitRetry(DEFAULT_RETRY_POLICY, 2, 1000)).toBe(false);
  });
});
