/**
 * The Bitbucket Cloud API 2.0 client: `@coderabbitai/bitbucket`'s `createBitbucketCloudClient`
 * (an `openapi-fetch` client typed from Atlassian's published OpenAPI description) with the
 * token as Bearer, plus what `openapi-fetch` does not do: following `next` links of paginated
 * answers, and file paths that keep their slashes (`/src/{commit}/{path}`). Every failure becomes a
 * `BitbucketHttpError` (status and Bitbucket's `error.message`; never the token).
 */
import { createBitbucketCloudClient } from '@coderabbitai/bitbucket/cloud';
import type { z } from 'zod';
import { pageOf } from './schemas.js';

/** An API call that failed: HTTP status (undefined when unreachable) and Bitbucket's message. */
export class BitbucketHttpError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'BitbucketHttpError';
  }
}

/** Options of `createBitbucketClient`. */
export interface BitbucketClientOptions {
  /** API base, e.g. `https://api.bitbucket.org/2.0`. */
  apiUrl: string;
  token: string;
  fetch?: typeof fetch;
}

/** `workspace/slug` as the path parameters of the generated client. */
export function repoParams(fullName: string): { workspace: string; repo_slug: string } {
  const [workspace = '', repo_slug = ''] = fullName.split('/');
  return { workspace, repo_slug };
}

/** Bitbucket's error text from an error body (`{"type":"error","error":{"message":…}}`). */
function messageOf(body: unknown, fallback: string): string {
  const error = (body as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message.slice(0, 300) : fallback;
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
  const doFetch = options.fetch ?? globalThis.fetch;
  const headers = { Authorization: `Bearer ${options.token}`, Accept: 'application/json' };
  const api = createBitbucketCloudClient({
    baseUrl: options.apiUrl,
    headers,
    fetch: (request: Request) => doFetch(request),
  });

  /** The data of an `openapi-fetch` result, or a `BitbucketHttpError`. */
  function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (result.response.ok && result.data !== undefined) return result.data;
    throw new BitbucketHttpError(result.response.status, messageOf(result.error, result.response.statusText));
  }

  /** Calls `fn`, turning a network failure into a `BitbucketHttpError` without a status. */
  async function send<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof BitbucketHttpError) throw error;
      throw new BitbucketHttpError(undefined, error instanceof Error ? error.message : String(error));
    }
  }

  /** GET of a full URL (a `next` link, a raw file), as JSON or text. */
  async function getUrl(url: string, as: 'json' | 'text'): Promise<unknown> {
    const response = await send(() => doFetch(url, { headers }));
    const text = await response.text();
    if (!response.ok) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      throw new BitbucketHttpError(response.status, messageOf(body, response.statusText));
    }
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
      if (!isUnderApi(page.next, options.apiUrl))
        throw new BitbucketHttpError(undefined, 'next link off the API');
      page = schema.parse(await getUrl(page.next, 'json'));
      out.push(...page.values);
    }
    return out;
  }

  return { api, ok, send, getUrl, all, apiUrl: options.apiUrl };
}

/** The client. */
export type BitbucketClient = ReturnType<typeof createBitbucketClient>;
