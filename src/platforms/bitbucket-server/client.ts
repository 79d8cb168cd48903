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
 * Every failure becomes a `BitbucketServerHttpError` (status and Bitbucket's first
 * `errors[].message`; never the token).
 */
import { createBitbucketServerClient } from '@coderabbitai/bitbucket/server';
import { z } from 'zod';

/** An API call that failed: HTTP status (undefined when unreachable) and Bitbucket's message. */
export class BitbucketServerHttpError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'BitbucketServerHttpError';
  }
}

/** Options of `createBitbucketServerClient`. */
export interface BitbucketServerClientOptions {
  /** Instance base URL, e.g. `https://bitbucket.example.com` (REST under `/rest`). */
  url: string;
  token: string;
  fetch?: typeof fetch;
}

/** Bitbucket's error text from an error body (`{"errors":[{"message":…}]}`). */
function messageOf(body: unknown, fallback: string): string {
  const errors = (body as { errors?: Array<{ message?: unknown }> } | undefined)?.errors;
  const message = Array.isArray(errors) ? errors[0]?.message : undefined;
  return typeof message === 'string' ? message.slice(0, 300) : fallback;
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
  const doFetch = options.fetch ?? globalThis.fetch;
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

  /** The data of an `openapi-fetch` result, or a `BitbucketServerHttpError`. */
  function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (result.response.ok) return result.data as T;
    throw new BitbucketServerHttpError(
      result.response.status,
      messageOf(result.error, result.response.statusText),
    );
  }

  /** Calls `fn`, turning a network failure into a `BitbucketServerHttpError` without a status. */
  async function send<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof BitbucketServerHttpError) throw error;
      throw new BitbucketServerHttpError(undefined, error instanceof Error ? error.message : String(error));
    }
  }

  /** GET of `path` under `<url>/rest/api/1.0` (already encoded), as text; null on 404 when asked. */
  async function getText(path: string): Promise<string> {
    const response = remember(await send(() => doFetch(`${options.url}/rest/api/1.0${path}`, { headers })));
    const text = await response.text();
    if (!response.ok) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      throw new BitbucketServerHttpError(response.status, messageOf(body, response.statusText));
    }
    return text;
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
      if (current.nextPageStart <= start) throw new BitbucketServerHttpError(undefined, 'paging went back');
      start = current.nextPageStart;
    }
    throw new BitbucketServerHttpError(undefined, 'too many pages');
  }

  return {
    api,
    ok,
    send,
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
