/**
 * The HTTP layer under `@gitbeaker/rest`: a gitbeaker `requesterFn` on the shared platform transport
 * (`../http/`: retries, `Retry-After`, timeouts), with GitLab's error bodies turned into
 * `PlatformHttpError` (status + GitLab's message). gitbeaker's default requester retries 429/502
 * ten times with sub-millisecond waits and cannot take a custom fetch (tests, proxies).
 */
import type { Users } from '@gitbeaker/rest';
import { createPlatformFetch, httpErrorOf, type PlatformHttpOptions } from '../http/index.js';

/** gitbeaker's `requesterFn` option (derived from its types; `@gitbeaker/requester-utils` is transitive). */
export type GitbeakerRequesterFn = NonNullable<ConstructorParameters<typeof Users>[0]['requesterFn']>;
type ResourceOptions = Parameters<GitbeakerRequesterFn>[0];
type Requester = ReturnType<GitbeakerRequesterFn>;
type RequestOptions = NonNullable<Parameters<Requester['get']>[1]>;

/** Options of `createGitLabRequesterFn`. */
export type GitLabRequesterOptions = PlatformHttpOptions;

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

async function bodyOf(response: Response, method: string, path: string): Promise<unknown> {
  if (response.status === 204) return null;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const text = await response.text();
  if (type === 'application/json') {
    try {
      return text === '' ? {} : (JSON.parse(text) as unknown);
    } catch {
      throw new Error(`${method} ${path}: the response is not valid JSON`);
    }
  }
  return text;
}

/**
 * Creates a gitbeaker `requesterFn` sending requests through the shared platform transport.
 * Each request carries the resource's headers and `PRIVATE-TOKEN`; a JSON body has its keys
 * snake_cased (gitbeaker's convention), a FormData body is sent as multipart. Resolves with
 * `{ body, headers, status }` (headers lower-cased) on 2xx.
 * @throws PlatformHttpError on a non-2xx answer (after the transport's retries); NetworkError when
 *   GitLab could not be reached; the request signal's reason when it aborts.
 */
export function createGitLabRequesterFn(options: GitLabRequesterOptions = {}): GitbeakerRequesterFn {
  const doFetch = createPlatformFetch({ ...options, platform: 'GitLab' });
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
        const response = await doFetch(url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        });
        if (!response.ok) throw await httpErrorOf(response);
        const parsed = await bodyOf(response, method, endpoint);
        // gitbeaker's generic response type cannot be named here; the platform validates bodies with zod.
        return {
          body: parsed,
          headers: Object.fromEntries(response.headers),
          status: response.status,
        } as never;
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
