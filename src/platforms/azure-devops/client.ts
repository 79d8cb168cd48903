/**
 * The Azure DevOps REST client: Microsoft's `azure-devops-node-api` (`GitApi`) authenticated with the
 * personal access token as HTTP Basic with an empty user (Microsoft Learn, "Use personal access
 * tokens": "Basic base64(':' + PAT)"), or with a pipeline's job access token as Bearer (`auth.ts`). The library discovers each resource's route with `OPTIONS
 * <collection>/_apis/<area>` and negotiates the api-version from the location's versions; reviewbot
 * pins `api-version=7.1` (CONTRACT §4) wherever the server releases it. `GitApi` is built on the
 * collection URL itself: on Services the git area lives there, on Server the resource-area lookup
 * answers an empty list (which `WebApi.getGitApi` would resolve to the same URL). The library's
 * requests go through the shared platform transport (`fetch-transport.ts`, `../http/`).
 */
import { getBasicHandler, getBearerHandler, WebApi } from 'azure-devops-node-api';
import { GitApi } from 'azure-devops-node-api/GitApi.js';
import {
  createPlatformFetch,
  errorMessageOf,
  PlatformHttpError,
  type PlatformHttpNames,
  type PlatformHttpOptions,
} from '../http/index.js';
import { isBearerToken } from './auth.js';
import { sendThroughFetch } from './fetch-transport.js';

/** The api-version reviewbot speaks (CONTRACT §4). */
export const API_VERSION = '7.1';

/**
 * How Azure DevOps failures read (`platformCall`): a bad personal access token is a 401, or a 203
 * with a sign-in page.
 */
export const AZURE_HTTP: PlatformHttpNames = {
  platform: 'Azure DevOps',
  urlVariable: 'AZURE_DEVOPS_URL',
  credentialsHint: 'AZURE_DEVOPS_TOKEN (expired or revoked?) and AZURE_DEVOPS_URL',
  forbiddenHint: 'forbidden: see docs/azure-devops.md for the scopes each bot needs',
  authStatuses: [401, 203],
  httpFailureOf: (error) => {
    const failure = azureFailure(error);
    return failure instanceof PlatformHttpError ? failure : undefined;
  },
};

/** Options of `createAzureClient`. */
export interface AzureClientOptions extends PlatformHttpOptions {
  /** Organization or collection URL, e.g. `https://dev.azure.com/acme`. */
  url: string;
  token: string;
}

interface ResourceLocation {
  releasedVersion?: string;
}

interface Negotiating {
  autoNegotiateApiVersion(location: ResourceLocation, requested: string): string;
}

/**
 * `error` as thrown by the library: an error answer (`statusCode`, `result.message`,
 * `responseHeaders`) as a `PlatformHttpError`; anything else (a `NetworkError`, an abort) as it is.
 */
export function azureFailure(error: unknown): unknown {
  const e = error as { statusCode?: unknown; result?: unknown; message?: unknown; responseHeaders?: unknown };
  if (error instanceof PlatformHttpError || typeof e?.statusCode !== 'number') return error;
  const headers = (e.responseHeaders ?? {}) as Record<string, unknown>;
  const retryAfter = typeof headers['retry-after'] === 'string' ? headers['retry-after'] : undefined;
  const fallback = typeof e.message === 'string' && e.message !== '' ? e.message : `HTTP ${e.statusCode}`;
  return new PlatformHttpError(e.statusCode, errorMessageOf(e.result, fallback), retryAfter);
}

/** Creates the client (no request is sent). */
export function createAzureClient(options: AzureClientOptions) {
  const handler = isBearerToken(options.token)
    ? getBearerHandler(options.token)
    : getBasicHandler('', options.token);
  const web = new WebApi(options.url, handler);
  const git = new GitApi(options.url, [handler]);
  const send = createPlatformFetch({ ...options, platform: 'Azure DevOps' });
  for (const http of [web.rest.client, git.rest.client, git.http]) sendThroughFetch(http, send);
  // The library asks for 7.2 previews; the contract speaks 7.1, which Services and Server 2022.1+
  // release. A server that releases only an older version keeps the library's own negotiation.
  const vso = git.vsoClient as unknown as Negotiating;
  const negotiate = vso.autoNegotiateApiVersion.bind(vso);
  vso.autoNegotiateApiVersion = (location, requested) =>
    Number(location.releasedVersion ?? '0') >= Number(API_VERSION)
      ? API_VERSION
      : negotiate(location, requested);

  /** Runs `fn`, turning the library's error answers into `PlatformHttpError`s. */
  async function call<T>(fn: (api: GitApi) => Promise<T>): Promise<T> {
    try {
      return await fn(git);
    } catch (error) {
      throw azureFailure(error);
    }
  }

  /**
   * Reads a stream the library returns for a file (`getItemContent`); 404 → null.
   * @throws FileTooLargeError when the body passes `maxBytes` (reading stops there).
   */
  async function text(
    fn: (api: GitApi) => Promise<NodeJS.ReadableStream>,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<string | null> {
    return call(async (api) => {
      const stream = await fn(api);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        size += buffer.length;
        if (size > maxBytes) {
          (stream as { destroy?: () => void }).destroy?.();
          throw new FileTooLargeError(maxBytes);
        }
        chunks.push(buffer);
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const status = (stream as { statusCode?: number }).statusCode ?? 200;
      if (status === 404) return null;
      if (status >= 400) {
        throw new PlatformHttpError(status, errorMessageOf(body, `HTTP ${status}`));
      }
      return body;
    });
  }

  return { web, git, send: call, text, url: options.url };
}

/** A file body longer than the reader's limit (bytes); nothing of it is kept. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`file larger than ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}

/** The client. */
export type AzureClient = ReturnType<typeof createAzureClient>;
