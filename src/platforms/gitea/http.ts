/**
 * The HTTP layer of the Gitea client: JSON and text requests to `<GITEA_URL>/api/v1` on an
 * injectable `fetch`, `Authorization: token <GITEA_TOKEN>` (accepted by Gitea and Forgejo alike),
 * Gitea's error bodies (`{"message": ...}`) turned into `GiteaHttpError`, bounded retries, and
 * Gitea's page/limit pagination (`x-total-count`).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** A Gitea API request that failed: `status` is undefined when no response arrived. */
export class GiteaHttpError extends Error {
  readonly status: number | undefined;
  readonly method: string;
  /** Path below the API base, e.g. `/repos/o/r/pulls/1`. */
  readonly path: string;
  constructor(method: string, path: string, status: number | undefined, message: string) {
    super(message);
    this.name = 'GiteaHttpError';
    this.method = method;
    this.path = path;
    this.status = status;
  }
}

/** Options of `createGiteaHttp`. */
export interface GiteaHttpOptions {
  /** Instance URL (`GITEA_URL`, normalized). */
  url: string;
  token: string;
  fetch?: typeof fetch;
  /** Retries after the first attempt (default 2): GET on network errors, 429 and 5xx; others on 429. */
  retries?: number;
  /** First backoff wait without `Retry-After`, ms (default 500; doubles per retry). */
  retryBaseMs?: number;
  /** Per-request timeout, ms (default 60 000). */
  timeoutMs?: number;
}

/** One request: `query` values are sent as text; `body` as JSON. */
export interface GiteaRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** `text` reads the body as text (raw files, diffs); default `json`. */
  as?: 'json' | 'text';
}

/** A 2xx answer. */
export interface GiteaResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** The requester. */
export interface GiteaHttp {
  request(method: string, path: string, request?: GiteaRequest): Promise<GiteaResponse>;
  /** Every item of a paginated list (`page`/`limit`), in order. */
  getAll(path: string, query?: GiteaRequest['query']): Promise<unknown[]>;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
/** Page size asked for: Gitea's default `MAX_RESPONSE_ITEMS` (a server may cap lower). */
export const PAGE_LIMIT = 50;
/** Pages read at most for one list (50 000 items). */
const MAX_PAGES = 1000;

/** Gitea's error text: `{"message": "...", "url": "..."}` or `{"errors": [...]}`; else the raw text. */
function errorMessage(status: number, text: string): string {
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errors?: unknown };
    if (typeof parsed.message === 'string' && parsed.message !== '') message = parsed.message;
    else if (Array.isArray(parsed.errors)) message = parsed.errors.map(String).join('; ');
  } catch {
    // not JSON (a proxy's HTML page): keep the text
  }
  if (message === '') message = `HTTP ${status}`;
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}

function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : cause?.message;
  return typeof detail === 'string' && detail !== '' ? `${error.message} (${detail})` : error.message;
}

/** Creates the requester (no request is sent). */
export function createGiteaHttp(options: GiteaHttpOptions): GiteaHttp {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const retries = options.retries ?? 2;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const base = `${options.url}/api/v1`;

  async function request(method: string, path: string, req: GiteaRequest = {}): Promise<GiteaResponse> {
    const url = new URL(`${base}${path}`);
    for (const [key, raw] of Object.entries(req.query ?? {})) {
      if (raw !== undefined) url.searchParams.set(key, String(raw));
    }
    const headers: Record<string, string> = {
      authorization: `token ${options.token}`,
      accept: req.as === 'text' ? 'text/plain, */*' : 'application/json',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await doFetch(url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && /abort|timeout/i.test(error.name);
        if (!timedOut && method === 'GET' && attempt < retries) {
          await sleep(retryBaseMs * 2 ** attempt);
          continue;
        }
        throw new GiteaHttpError(
          method,
          path,
          undefined,
          timedOut ? 'the request timed out' : networkReason(error),
        );
      }
      if (response.ok) {
        const text = await response.text();
        if (req.as === 'text') return { status: response.status, body: text, headers: response.headers };
        let parsed: unknown;
        try {
          parsed = text === '' ? null : (JSON.parse(text) as unknown);
        } catch {
          throw new GiteaHttpError(method, path, response.status, 'the response is not valid JSON');
        }
        return { status: response.status, body: parsed, headers: response.headers };
      }
      const retry =
        attempt < retries &&
        (response.status === 429 || (method === 'GET' && RETRYABLE_STATUS.has(response.status)));
      if (retry) {
        await response.body?.cancel();
        const header = response.headers.get('retry-after');
        const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
        await sleep(Math.min(seconds !== undefined ? seconds * 1000 : retryBaseMs * 2 ** attempt, 30_000));
        continue;
      }
      throw new GiteaHttpError(
        method,
        path,
        response.status,
        errorMessage(response.status, await response.text()),
      );
    }
  }

  async function getAll(path: string, query: GiteaRequest['query'] = {}): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { body, headers } = await request('GET', path, { query: { ...query, page, limit: PAGE_LIMIT } });
      if (!Array.isArray(body)) throw new GiteaHttpError('GET', path, 200, 'expected a JSON array');
      out.push(...(body as unknown[]));
      const total = Number(headers.get('x-total-count') ?? Number.NaN);
      const more = Number.isFinite(total) ? out.length < total : body.length >= PAGE_LIMIT;
      if (!more || body.length === 0) break;
    }
    return out;
  }

  return { request, getAll };
}
