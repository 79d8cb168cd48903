/**
 * The Bitbucket Data Center REST client: `@coderabbitai/bitbucket`'s `createBitbucketServerClient`,
 * an `openapi-fetch` client typed from Atlassian's published OpenAPI description of Data Center
 * (`/rest/api/latest/…`; the same package backs the Bitbucket Cloud platform). It is used rather
 * than hand-written `fetch` calls because its path and body types come from Atlassian's own
 * description, so a typo in a path or a field fails the type check; it is small (one dependency,
 * `openapi-fetch`) and loaded only when the platform is configured.
 *
 * On top of it: the token as Bearer (an HTTP access token, Atlassian "HTTP access tokens"),
 * requests sent to `/rest/api/1.0` (CONTRACT §4; `latest` and `1.0` are the same API), the
 * authenticated user's name read from the `X-AUSERNAME` response header (Data Center sets it on
 * every authenticated answer; there is no "current user" endpoint), paging by `start`/`limit`
 * until `isLastPage` (Atlassian REST "Paged APIs"), and file paths that keep their slashes.
 * Requests go through the shared platform transport (`../http/`: retries, `Retry-After`, timeouts);
 * an error answer becomes a `PlatformHttpError` (status and Bitbucket's `errors[].message`; never
 * the token).
 */
import { createBitbucketServerClient } from '@coderabbitai/bitbucket/server';
import { z } from 'zod';
import {
  createPlatformFetch,
  errorMessageOf,
  httpErrorOf,
  PlatformHttpError,
  type PlatformHttpNames,
  type PlatformHttpOptions,
} from '../http/index.js';

/** How Bitbucket Data Center failures read (`platformCall`). */
export const BITBUCKET_SERVER_HTTP: PlatformHttpNames = {
  platform: 'Bitbucket Data Center',
  urlVariable: 'BITBUCKET_SERVER_URL',
  credentialsHint: 'BITBUCKET_SERVER_TOKEN (expired or revoked?) and BITBUCKET_SERVER_URL',
  forbiddenHint: 'forbidden: see docs/bitbucket.md for the permissions each bot needs',
};

/** Options of `createBitbucketServerClient`. */
export interface BitbucketServerClientOptions extends PlatformHttpOptions {
  /** Instance base URL, e.g. `https://bitbucket.example.com` (REST under `/rest`). */
  url: string;
  token: string;
}

/** One page of a paged answer (Atlassian REST "Paged APIs"). */
const Page = z.object({
  values: z.array(z.unknown()).default([]),
  isLastPage: z.boolean().default(true),
  nextPageStart: z.number().int().nonnegative().nullish(),
});

/** Page size asked for (`limit`); the server may serve fewer, and paging follows `nextPageStart`. */
const PAGE_LIMIT = 500;

/** A URL of the API path `/api/latest/…` rewritten to `/api/1.0/…` (and build-status likewise). */
function toVersionOne(url: string): string {
  return url.replace(/\/rest\/(api|build-status)\/latest\//, '/rest/$1/1.0/');
}

/** Creates the client (no request is sent). */
export function createBitbucketServerRestClient(options: BitbucketServerClientOptions) {
  const doFetch = createPlatformFetch({ ...options, platform: 'Bitbucket Data Center' });
  const headers = { Authorization: `Bearer ${options.token}`, Accept: 'application/json' };
  let username: string | undefined;
  const remember = (response: Response) => {
    const name = response.headers.get('x-ausername');
    if (response.ok && name) username = name;
    return response;
  };
  const api = createBitbucketServerClient({
    baseUrl: `${options.url}/rest`,
    headers,
    fetch: async (request: Request) =>
      remember(await doFetch(new Request(toVersionOne(request.url), request))),
  });

  /** The data of an `openapi-fetch` result, or a `PlatformHttpError`. */
  function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
    const { response } = result;
    if (response.ok) return result.data as T;
    const message = errorMessageOf(result.error, response.statusText || `HTTP ${response.status}`);
    throw new PlatformHttpError(response.status, message, response.headers.get('retry-after'));
  }

  /** GET of `path` under `<url>/rest/api/1.0` (already encoded), as text. */
  async function getText(path: string): Promise<string> {
    const response = remember(await doFetch(`${options.url}/rest/api/1.0${path}`, { headers }));
    if (!response.ok) throw await httpErrorOf(response);
    return response.text();
  }

  /**
   * Every value (checked with `item`) of a paged list: `page(start, limit)` fetches one page's
   * body; pages follow `nextPageStart` until `isLastPage` (at most 200 pages).
   */
  async function all<T extends z.ZodType>(
    item: T,
    page: (start: number, limit: number) => Promise<unknown>,
  ): Promise<Array<z.output<T>>> {
    const out: Array<z.output<T>> = [];
    let start = 0;
    for (let n = 0; n < 200; n++) {
      const current = Page.parse(await page(start, PAGE_LIMIT));
      for (const value of current.values) out.push(item.parse(value));
      if (current.isLastPage || current.nextPageStart == null) return out;
      if (current.nextPageStart <= start) throw new Error('paging went back');
      start = current.nextPageStart;
    }
    throw new Error('too many pages');
  }

  return {
    api,
    ok,
    getText,
    all,
    url: options.url,
    /** The authenticated user's name from the last `X-AUSERNAME` seen, if any. */
    username: () => username,
  };
}

/** The client. */
export type BitbucketServerClient = ReturnType<typeof createBitbucketServerRestClient>;

/** `KEY/slug` as the path parameters of the generated client. */
export function repoParams(fullName: string): { projectKey: string; repositorySlug: string } {
  const [projectKey = '', repositorySlug = ''] = fullName.split('/');
  return { projectKey, repositorySlug };
}

/** A repository path URL-encoded segment by segment (slashes kept). */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `/projects/{KEY}/repos/{slug}` of `fullName`, encoded. */
export function repoPath(fullName: string): string {
  const { projectKey, repositorySlug } = repoParams(fullName);
  return `/projects/${encodeURIComponent(projectKey)}/repos/${encodeURIComponent(repositorySlug)}`;
}
