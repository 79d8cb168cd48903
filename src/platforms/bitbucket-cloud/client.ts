/**
 * The Bitbucket Cloud API 2.0 client: `@coderabbitai/bitbucket`'s `createBitbucketCloudClient`
 * (an `openapi-fetch` client typed from Atlassian's published OpenAPI description) with the
 * token as Bearer, plus what `openapi-fetch` does not do: following `next` links of paginated
 * answers, and file paths that keep their slashes (`/src/{commit}/{path}`). Requests go through the
 * shared platform transport (`../http/`: retries, `Retry-After`, timeouts); an error answer becomes
 * a `PlatformHttpError` (status and Bitbucket's `error.message`; never the token).
 */
import { createBitbucketCloudClient } from '@coderabbitai/bitbucket/cloud';
import type { z } from 'zod';
import {
  createPlatformFetch,
  errorMessageOf,
  httpErrorOf,
  PlatformHttpError,
  type PlatformHttpNames,
  type PlatformHttpOptions,
} from '../http/index.js';
import { pageOf } from './schemas.js';

/** How Bitbucket Cloud failures read (`platformCall`). */
export const BITBUCKET_HTTP: PlatformHttpNames = {
  platform: 'Bitbucket',
  urlVariable: 'BITBUCKET_API_URL',
  credentialsHint: 'BITBUCKET_TOKEN (expired or revoked?) and BITBUCKET_API_URL',
  forbiddenHint: 'forbidden: see docs/bitbucket.md for the scopes each bot needs',
};

/** Options of `createBitbucketClient`. */
export interface BitbucketClientOptions extends PlatformHttpOptions {
  /** API base, e.g. `https://api.bitbucket.org/2.0`. */
  apiUrl: string;
  token: string;
}

/** `workspace/slug` as the path parameters of the generated client. */
export function repoParams(fullName: string): { workspace: string; repo_slug: string } {
  const [workspace = '', repo_slug = ''] = fullName.split('/');
  return { workspace, repo_slug };
}

/**
 * True when `link` lies under the API base `apiUrl`: same origin (scheme, host, port) and a path
 * equal to the base's or below it at a `/` boundary. A plain prefix test would let
 * `https://api.bitbucket.org.evil.com/…` or `…/2.0evil/…` through, and the token with it.
 */
export function isUnderApi(link: string, apiUrl: string): boolean {
  let url: URL;
  let base: URL;
  try {
    url = new URL(link);
    base = new URL(apiUrl);
  } catch {
    return false;
  }
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') return false;
  const root = base.pathname.replace(/\/+$/, '');
  return url.pathname === root || url.pathname.startsWith(`${root}/`);
}

/** Creates the client (no request is sent). */
export function createBitbucketClient(options: BitbucketClientOptions) {
  const doFetch = createPlatformFetch({ ...options, platform: 'Bitbucket' });
  const headers = { Authorization: `Bearer ${options.token}`, Accept: 'application/json' };
  const api = createBitbucketCloudClient({
    baseUrl: options.apiUrl,
    headers,
    fetch: (request: Request) => doFetch(request),
  });

  /** The data of an `openapi-fetch` result, or a `PlatformHttpError`. */
  function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
    const { response } = result;
    if (response.ok && result.data !== undefined) return result.data;
    const message = errorMessageOf(result.error, response.statusText || `HTTP ${response.status}`);
    throw new PlatformHttpError(response.status, message, response.headers.get('retry-after'));
  }

  /** GET of a full URL (a `next` link, a raw file), as JSON or text. */
  async function getUrl(url: string, as: 'json' | 'text'): Promise<unknown> {
    const response = await doFetch(url, { headers });
    if (!response.ok) throw await httpErrorOf(response);
    const text = await response.text();
    return as === 'text' ? text : JSON.parse(text);
  }

  /**
   * Every value (checked with `item`) of a paginated answer whose first page is `first`, following
   * `next` links (Bitbucket "Pagination"; at most 100 pages, only links under the API base).
   */
  async function all<T extends z.ZodType>(item: T, first: unknown): Promise<Array<z.output<T>>> {
    const schema = pageOf(item);
    let page = schema.parse(first);
    const out: Array<z.output<T>> = [...page.values];
    for (let n = 0; page.next && n < 100; n++) {
      if (!isUnderApi(page.next, options.apiUrl)) throw new Error('next link off the API');
      page = schema.parse(await getUrl(page.next, 'json'));
      out.push(...page.values);
    }
    return out;
  }

  return { api, ok, getUrl, all, apiUrl: options.apiUrl };
}

/** The client. */
export type BitbucketClient = ReturnType<typeof createBitbucketClient>;
