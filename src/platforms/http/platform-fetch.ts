/**
 * The one HTTP transport of the platform API clients: a `fetch` that retries by the shared policy
 * (`retry-policy.ts`), waits what `Retry-After` asks (seconds or an HTTP-date) up to the policy's
 * cap, gives each attempt its own timeout, stops at once when the caller's signal aborts (during a
 * wait too), and turns a request that got no answer into a `NetworkError` with the system's code.
 *
 * Not undici's `RetryAgent`, though undici 8 reads HTTP-date `Retry-After` too: it shortens a wait
 * longer than its cap instead of failing, replays no request body under `fetch` (the body reaches the
 * dispatcher as a one-shot stream, so a PUT with a body is never retried), and takes a dispatcher,
 * which neither Azure DevOps' client (`node:http`) nor a test's own `fetch` can use.
 *
 * The default underlying fetch is the global one, through the proxy `HTTP_PROXY`/`HTTPS_PROXY`
 * name unless `NO_PROXY` covers the host (`proxy-dispatcher.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { proxyDispatcher } from './proxy-dispatcher.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type AttemptFailure, type RetryPolicy } from './retry-policy.js';

/** What a platform's API client takes for its HTTP; every field optional. */
export interface PlatformHttpOptions {
  /**
   * The underlying fetch (tests); default the global one, through the proxy the environment names
   * (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, and their lower-case forms).
   */
  fetch?: typeof fetch;
  /** Changes to `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /** Time one attempt may take, headers and body, ms (default 60 000). */
  timeoutMs?: number;
  /** Where retries and given-up waits are reported (warn level). */
  logger?: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
}

/** Options of `createPlatformFetch`. */
export interface PlatformFetchOptions extends PlatformHttpOptions {
  /** Display name in log lines, e.g. "Gitea". */
  platform: string;
  /**
   * Error answers handed back at once, for a client that retries them itself by the same policy
   * (GitHub's exhausted rate limit, which Octokit's throttling plugin waits out by
   * `x-ratelimit-reset`).
   */
  leaveToClient?: (response: Response) => boolean;
}

/** A request that got no HTTP answer: refused, reset, unresolvable host, TLS failure, timeout. */
export class NetworkError extends Error {
  /** The system or undici code (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`, …), or `TIMEOUT`. */
  readonly code: string | undefined;
  constructor(message: string, options: { code: string | undefined; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NetworkError';
    this.code = options.code;
  }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  UND_ERR_SOCKET: 'connection closed by the server',
  EPIPE: 'connection closed by the server',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate not trusted',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};

/** The first `code` string along `error`'s cause chain (undici puts the system error in `cause`). */
function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The message of the innermost error along `error`'s cause chain (`fetch failed` says nothing). */
function innermostMessage(error: unknown): string {
  let message = 'network error';
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}

/** True when a body can be sent again (not a stream or an async iterable). */
function replayable(body: RequestInit['body'], template: Request | undefined): boolean {
  if (body === undefined || body === null) return true;
  if (typeof body === 'string' || body instanceof URLSearchParams || body instanceof FormData) return true;
  if (body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return true;
  return template !== undefined && body === template.body;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

/**
 * Creates the fetch every platform client sends with. Resolves with the final `Response` (2xx, or
 * an error status the policy does not retry or gave up on: the client reads its body).
 * @throws the caller's `signal.reason` when it aborts; `NetworkError` when no attempt got an answer.
 */
export function createPlatformFetch(options: PlatformFetchOptions): typeof fetch {
  const base: typeof fetch = options.fetch ?? fetchThroughEnvProxy;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 60_000;
  return async function platformFetch(
    input: Parameters<typeof fetch>[0],
    init: RequestInit = {},
  ): Promise<Response> {
    const template = input instanceof Request ? input : undefined;
    const method = (init.method ?? template?.method ?? 'GET').toUpperCase();
    const signal = init.signal ?? template?.signal ?? undefined;
    const url = new URL(template ? template.url : String(input));
    const canReplay = replayable(init.body ?? template?.body, template);
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const timer = AbortSignal.timeout(timeoutMs);
      const attemptSignal = signal ? AbortSignal.any([signal, timer]) : timer;
      let response: Response | undefined;
      let failure: AttemptFailure;
      let error: unknown;
      try {
        response = await base(template && canReplay ? template.clone() : input, {
          ...init,
          signal: attemptSignal,
        });
      } catch (thrown) {
        if (signal?.aborted) throw signal.reason;
        error = thrown;
      }
      if (response) {
        if (response.ok || options.leaveToClient?.(response)) return response;
        failure = {
          kind: 'status',
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
        };
      } else {
        failure = { kind: 'network', code: timer.aborted ? 'TIMEOUT' : codeOf(error) };
      }
      const decision = decideRetry({
        policy,
        attempt,
        method,
        replayable: canReplay,
        failure,
        now: Date.now(),
      });
      const what =
        failure.kind === 'status'
          ? `answered ${failure.status}`
          : `got no answer (${failure.code ?? 'network error'})`;
      const where = { method, host: url.host, path: url.pathname, attempt };
      if (!decision.retry) {
        if (decision.why === 'wait-too-long') {
          options.logger?.warn(
            { ...where, retryAfterMs: decision.delayMs, maxDelayMs: policy.maxDelayMs },
            `${options.platform} API ${what} and asked to wait longer than reviewbot waits; giving up`,
          );
        }
        if (response) return response;
        throw networkError(failure, url, timeoutMs, error);
      }
      // Info, not warn: a retry that then succeeds is no problem for the person at the CLI (whose
      // default level is warn); `serve` logs it. A final failure is reported once, by the caller.
      options.logger?.info(
        { ...where, delayMs: decision.delayMs },
        `${options.platform} API ${what}; retrying`,
      );
      await response?.body?.cancel().catch(() => undefined);
      await wait(decision.delayMs, signal);
    }
  };
}

/** `globalThis.fetch`, with the environment's proxy as its dispatcher when one is set. */
async function fetchThroughEnvProxy(
  input: Parameters<typeof fetch>[0],
  init?: RequestInit,
): Promise<Response> {
  const dispatcher = await proxyDispatcher();
  if (dispatcher === undefined) return globalThis.fetch(input, init);
  // Assigned, not typed: Node's RequestInit names its bundled undici's Dispatcher, not undici 8's.
  return globalThis.fetch(input, Object.assign({ ...init }, { dispatcher }));
}

function networkError(failure: AttemptFailure, url: URL, timeoutMs: number, cause: unknown): NetworkError {
  const code = failure.kind === 'network' ? failure.code : undefined;
  if (code === 'TIMEOUT') {
    return new NetworkError(`no answer from ${url.host} within ${Math.round(timeoutMs / 1000)} s`, {
      code,
      cause,
    });
  }
  const reason = (code && REASONS[code]) ?? innermostMessage(cause);
  return new NetworkError(`${reason}${code ? ` (${code})` : ''} at ${url.host}`, { code, cause });
}
