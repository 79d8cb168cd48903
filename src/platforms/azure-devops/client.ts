/**
 * The Azure DevOps REST client: Microsoft's `azure-devops-node-api` (`GitApi`) authenticated with the
 * personal access token as HTTP Basic with an empty user (Microsoft Learn, "Use personal access
 * tokens": "Basic base64(':' + PAT)"), or with a pipeline's job access token as Bearer (`auth.ts`). The library discovers each resource's route with `OPTIONS
 * <collection>/_apis/<area>` and negotiates the api-version from the location's versions; reviewbot
 * pins `api-version=7.1` (CONTRACT §4) wherever the server releases it. `GitApi` is built on the
 * collection URL itself: on Services the git area lives there, on Server the resource-area lookup
 * answers an empty list (which `WebApi.getGitApi` would resolve to the same URL).
 */
import { getBasicHandler, getBearerHandler, WebApi } from 'azure-devops-node-api';
import { GitApi } from 'azure-devops-node-api/GitApi.js';
import { isBearerToken } from './auth.js';
import type { IRequestOptions } from 'azure-devops-node-api/interfaces/common/VsoBaseInterfaces.js';

/** The api-version reviewbot speaks (CONTRACT §4). */
export const API_VERSION = '7.1';

/** An API call that failed: HTTP status (undefined when unreachable) and Azure DevOps' message. */
export class AzureHttpError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'AzureHttpError';
  }
}

/** Options of `createAzureClient`. */
export interface AzureClientOptions {
  /** Organization or collection URL, e.g. `https://dev.azure.com/acme`. */
  url: string;
  token: string;
  /** Socket timeout of each request, ms (default 60 s). */
  timeoutMs?: number;
}

interface ResourceLocation {
  releasedVersion?: string;
}

interface Negotiating {
  autoNegotiateApiVersion(location: ResourceLocation, requested: string): string;
}

/**
 * `error` (thrown by the library: `statusCode` and `result.message` for an HTTP failure, a Node
 * error for a network one) as an `AzureHttpError` carrying no credential.
 */
export function toAzureHttpError(error: unknown): AzureHttpError {
  if (error instanceof AzureHttpError) return error;
  const e = error as { statusCode?: unknown; result?: { message?: unknown }; message?: unknown };
  const status = typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  const text =
    typeof e?.result?.message === 'string'
      ? e.result.message
      : typeof e?.message === 'string'
        ? e.message
        : String(error);
  return new AzureHttpError(status, text.slice(0, 300));
}

/** Creates the client (no request is sent). */
export function createAzureClient(options: AzureClientOptions) {
  const handler = isBearerToken(options.token)
    ? getBearerHandler(options.token)
    : getBasicHandler('', options.token);
  const requestOptions: IRequestOptions = { socketTimeout: options.timeoutMs ?? 60_000 };
  const web = new WebApi(options.url, handler, requestOptions);
  const git = new GitApi(options.url, [handler], requestOptions);
  // The library asks for 7.2 previews; the contract speaks 7.1, which Services and Server 2022.1+
  // release. A server that releases only an older version keeps the library's own negotiation.
  const vso = git.vsoClient as unknown as Negotiating;
  const negotiate = vso.autoNegotiateApiVersion.bind(vso);
  vso.autoNegotiateApiVersion = (location, requested) =>
    Number(location.releasedVersion ?? '0') >= Number(API_VERSION)
      ? API_VERSION
      : negotiate(location, requested);

  /** Runs `fn`, turning any failure into an `AzureHttpError`. */
  async function send<T>(fn: (api: GitApi) => Promise<T>): Promise<T> {
    try {
      return await fn(git);
    } catch (error) {
      if (error instanceof FileTooLargeError) throw error;
      throw toAzureHttpError(error);
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
    return send(async (api) => {
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
        let message = `HTTP ${status}`;
        try {
          const parsed = JSON.parse(body) as { message?: unknown };
          if (typeof parsed.message === 'string') message = parsed.message;
        } catch {
          // not JSON: keep the status
        }
        throw new AzureHttpError(status, message.slice(0, 300));
      }
      return body;
    });
  }

  return { web, git, send, text, url: options.url };
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
