/**
 * The HTTP layer under `@gitbeaker/rest`: a gitbeaker `requesterFn` on an injectable `fetch`, with
 * GitLab's error bodies turned into `GitLabHttpError` (status + GitLab's message) and a bounded
 * retry policy. gitbeaker's default requester retries 429/502 ten times with sub-millisecond waits
 * and cannot take a custom fetch (tests, proxies); this one waits `Retry-After` (or exponential
 * backoff) and never repeats a write that GitLab may already have applied.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Users } from '@gitbeaker/rest';

/** gitbeaker's `requesterFn` option (derived from its types; `@gitbeaker/requester-utils` is transitive). */
export type GitbeakerRequesterFn = NonNullable<ConstructorParameters<typeof Users>[0]['requesterFn']>;
type ResourceOptions = Parameters<GitbeakerRequesterFn>[0];
type Requester = ReturnType<GitbeakerRequesterFn>;
type RequestOptions = NonNullable<Parameters<Requester['get']>[1]>;

/** A GitLab API request that failed: `status` is undefined when no response arrived (network, timeout). */
export class GitLabHttpError extends Error {
  readonly status: number | undefined;
  readonly method: string;
  /** Path of the request below the API base, e.g. `projects/g%2Fp/merge_requests/1`. */
  readonly path: string;
  constructor(method: string, path: string, status: number | undefined, message: string) {
    super(message);
    this.name = 'GitLabHttpError';
    this.method = method;
    this.path = path;
    this.status = status;
  }
}

/** Options of `createGitLabRequesterFn`. */
export interface GitLabRequesterOptions {
  fetch?: typeof fetch;
  /** Retries after the first attempt (default 2): GET on network errors, 429 and 5xx; other methods on 429 only. */
  retries?: number;
  /** First backoff wait when the response has no `Retry-After`, ms (default 500; doubles per retry). */
  retryBaseMs?: number;
  /** Longest wait honoured from `Retry-After`, ms (default 30 000). */
  maxRetryWaitMs?: number;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** camelCase → snake_case, as gitbeaker's own requester does for query and JSON body keys. */
function snake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[snake(key)] = snakeKeys(inner);
  return out;
}

/** Query string of gitbeaker's `searchParams` (flat values; arrays as `key[]`, GitLab's form). */
function queryOf(params: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, raw] of Object.entries(params ?? {})) {
    if (raw === undefined || raw === null) continue;
    const name = snake(key);
    if (Array.isArray(raw)) for (const item of raw) search.append(`${name}[]`, String(item));
    else search.append(name, typeof raw === 'object' ? JSON.stringify(raw) : String(raw));
  }
  return search.toString();
}

/** GitLab's error text: `{"message": "..."}`, `{"message": {field: [...]}}` or `{"error": "..."}`. */
function errorMessage(status: number, text: string): string {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown; error_description?: unknown };
    const detail = parsed.message ?? parsed.error_description ?? parsed.error;
    if (typeof detail === 'string') message = detail;
    else if (detail !== undefined) message = JSON.stringify(detail);
  } catch {
    // not JSON (an HTML error page from a proxy): keep the text
  }
  if (message === '') message = `HTTP ${status}`;
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

function retryWaitMs(response: Response, attempt: number, options: Required<GitLabRequesterOptions>): number {
  const header = response.headers.get('retry-after');
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  const wait = seconds !== undefined ? seconds * 1000 : options.retryBaseMs * 2 ** attempt;
  return Math.min(wait, options.maxRetryWaitMs);
}

/** `fetch failed (ECONNREFUSED)`: undici's message plus the code (or message) of its cause. */
function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : cause?.message;
  return typeof detail === 'string' && detail !== '' ? `${error.message} (${detail})` : error.message;
}

async function bodyOf(response: Response, method: string, path: string): Promise<unknown> {
  if (response.status === 204) return null;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const text = await response.text();
  if (type === 'application/json') {
    try {
      return text === '' ? {} : (JSON.parse(text) as unknown);
    } catch {
      throw new GitLabHttpError(method, path, response.status, 'the response is not valid JSON');
    }
  }
  return text;
}

/**
 * Creates a gitbeaker `requesterFn` sending requests with `options.fetch` (default: global fetch).
 * Each request carries the resource's headers and `PRIVATE-TOKEN`; a JSON body has its keys
 * snake_cased (gitbeaker's convention), a FormData body is sent as multipart. Resolves with
 * `{ body, headers, status }` (headers lower-cased) on 2xx.
 * @throws GitLabHttpError on a non-2xx answer after retries, a network failure or a timeout.
 */
export function createGitLabRequesterFn(options: GitLabRequesterOptions = {}): GitbeakerRequesterFn {
  const settings: Required<GitLabRequesterOptions> = {
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retries: options.retries ?? 2,
    retryBaseMs: options.retryBaseMs ?? 500,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 30_000,
  };
  return (resource: ResourceOptions): Requester => {
    const base = resource.url.endsWith('/') ? resource.url : `${resource.url}/`;
    const send =
      (method: string) =>
      async (endpoint: string, request: RequestOptions = {}): Promise<never> => {
        const url = new URL(endpoint, base);
        url.search = queryOf(request.searchParams);
        const headers: Record<string, string> = { ...resource.headers };
        for (const [name, read] of Object.entries(resource.authHeaders)) headers[name] = await read();
        if (request.sudo !== undefined) headers.sudo = String(request.sudo);
        let body: string | FormData | undefined;
        if (request.body instanceof FormData) body = request.body;
        else if (request.body !== undefined) {
          body = JSON.stringify(snakeKeys(request.body));
          headers['content-type'] = 'application/json';
        }
        for (let attempt = 0; ; attempt++) {
          let response: Response;
          try {
            response = await settings.fetch(url, {
              method,
              headers,
              ...(body !== undefined ? { body } : {}),
              ...(request.signal ? { signal: request.signal } : {}),
            });
          } catch (error) {
            const timedOut = error instanceof Error && /abort|timeout/i.test(error.name);
            if (!timedOut && method === 'GET' && attempt < settings.retries) {
              await sleep(settings.retryBaseMs * 2 ** attempt);
              continue;
            }
            const reason = timedOut ? 'the request timed out' : networkReason(error);
            throw new GitLabHttpError(method, endpoint, undefined, reason);
          }
          if (response.ok) {
            const parsed = await bodyOf(response, method, endpoint);
            // gitbeaker's generic response type cannot be named here; the platform validates bodies with zod.
            return {
              body: parsed,
              headers: Object.fromEntries(response.headers),
              status: response.status,
            } as never;
          }
          const retry =
            attempt < settings.retries &&
            (response.status === 429 || (method === 'GET' && RETRYABLE_STATUS.has(response.status)));
          if (retry) {
            await response.body?.cancel();
            await sleep(retryWaitMs(response, attempt, settings));
            continue;
          }
          throw new GitLabHttpError(
            method,
            endpoint,
            response.status,
            errorMessage(response.status, await response.text()),
          );
        }
      };
    return {
      get: send('GET'),
      post: send('POST'),
      put: send('PUT'),
      patch: send('PATCH'),
      delete: send('DELETE'),
    };
  };
}
