/**
 * The HTTP layer of the Gitea client: JSON and text requests to `<GITEA_URL>/api/v1` over the
 * shared platform transport (retries, timeouts: `../http/`), `Authorization: token <GITEA_TOKEN>`
 * (accepted by Gitea and Forgejo alike), error answers as `PlatformHttpError` (Gitea's
 * `{"message": ...}`), and Gitea's page/limit pagination (`x-total-count`).
 */
import { createPlatformFetch, httpErrorOf, type PlatformHttpOptions } from '../http/index.js';

/** Options of `createGiteaHttp`. */
export interface GiteaHttpOptions extends PlatformHttpOptions {
  /** Instance URL (`GITEA_URL`, normalized). */
  url: string;
  token: string;
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

/** Page size asked for: Gitea's default `MAX_RESPONSE_ITEMS` (a server may cap lower). */
export const PAGE_LIMIT = 50;
/** Pages read at most for one list (50 000 items). */
const MAX_PAGES = 1000;

/** Creates the requester (no request is sent). */
export function createGiteaHttp(options: GiteaHttpOptions): GiteaHttp {
  const doFetch = createPlatformFetch({ ...options, platform: 'Gitea' });
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
    const response = await doFetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    if (!response.ok) throw await httpErrorOf(response);
    const text = await response.text();
    if (req.as === 'text') return { status: response.status, body: text, headers: response.headers };
    try {
      const parsed = text === '' ? null : (JSON.parse(text) as unknown);
      return { status: response.status, body: parsed, headers: response.headers };
    } catch {
      throw new Error(`${method} ${path}: the response is not valid JSON`);
    }
  }

  async function getAll(path: string, query: GiteaRequest['query'] = {}): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { body, headers } = await request('GET', path, { query: { ...query, page, limit: PAGE_LIMIT } });
      if (!Array.isArray(body)) throw new Error(`GET ${path}: expected a JSON array`);
      out.push(...(body as unknown[]));
      const total = Number(headers.get('x-total-count') ?? Number.NaN);
      const more = Number.isFinite(total) ? out.length < total : body.length >= PAGE_LIMIT;
      if (!more || body.length === 0) break;
    }
    return out;
  }

  return { request, getAll };
}
