/**
 * Sends the requests of `azure-devops-node-api` (whose `typed-rest-client` speaks `node:http`)
 * through the shared platform transport instead, so Azure DevOps gets the same retries, `Retry-After`
 * handling, timeouts and network errors as every other platform. Each `HttpClient` of the library
 * has its `requestRaw` replaced; the library still builds the URL, the headers (its auth handler's
 * `Authorization` included) and reads the answer, which this module hands back in the shape of
 * `typed-rest-client`'s `HttpClientResponse` (a readable `message` with `statusCode` and `headers`,
 * and `readBody()`).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PlatformHttpError } from '../http/index.js';

/** What `typed-rest-client` passes to `requestRaw`. */
interface RawRequest {
  parsedUrl: URL;
  options: { method?: string; headers?: Record<string, unknown> };
}

interface RawClient {
  requestRaw(info: RawRequest, data: unknown): Promise<unknown>;
}

/** Headers fetch sets itself. */
const DROPPED_REQUEST = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);
/** fetch has already decoded the body: the library must not decode it again. */
const DROPPED_RESPONSE = new Set(['content-encoding', 'content-length']);

/** `response` as `typed-rest-client`'s `HttpClientResponse`. */
function toLibraryResponse(response: Response) {
  const message = response.body
    ? Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
    : Readable.from([]);
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (!DROPPED_RESPONSE.has(name)) headers[name] = value;
  Object.assign(message, { statusCode: response.status, statusMessage: response.statusText, headers });
  return {
    message,
    async readBody(): Promise<string> {
      const chunks: Buffer[] = [];
      for await (const chunk of message) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/**
 * Replaces `client.requestRaw` (a `typed-rest-client` `HttpClient`) with a call of `send`. A 203
 * with an HTML body (Azure DevOps' sign-in page, its answer to a bad personal access token) becomes
 * a `PlatformHttpError` 203 instead of an empty result.
 * @throws Error for a streamed request body (reviewbot uploads nothing).
 */
export function sendThroughFetch(client: object, send: typeof fetch): void {
  (client as RawClient).requestRaw = async (info: RawRequest, data: unknown) => {
    if (data !== null && data !== undefined && typeof data !== 'string') {
      throw new Error('streamed request bodies are not supported');
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(info.options.headers ?? {})) {
      if (value === undefined || DROPPED_REQUEST.has(name.toLowerCase())) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const response = await send(info.parsedUrl.href, {
      method: info.options.method ?? 'GET',
      headers,
      ...(typeof data === 'string' ? { body: data } : {}),
    });
    if (response.status === 203 && (response.headers.get('content-type') ?? '').includes('text/html')) {
      await response.body?.cancel();
      throw new PlatformHttpError(203, 'a sign-in page instead of an API answer');
    }
    return toLibraryResponse(response);
  };
}
