/**
 * Reading a webhook body into one Buffer without holding its pieces. Fastify's own buffer parser
 * keeps every chunk the socket delivered (64 KiB each: 320 for a 20 MiB body) until the body is
 * complete, then copies them into one Buffer; with a few such bodies at once the allocator's heap
 * grows by hundreds of MB and does not shrink afterwards (`npm run bench:webhook-storm`). Here a
 * body with a declared `Content-Length` is copied into one Buffer of that size as it arrives, so
 * each chunk is garbage as soon as it is copied; a chunked body is collected up to the limit.
 */
import type { IncomingMessage } from 'node:http';

/** A body read error with the HTTP status to answer (Fastify's error handler reads `statusCode`). */
export class BodyReadError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = 'BodyReadError';
  }
}

/**
 * Reads `stream` completely. With a valid `content-length` header the bytes go straight into one
 * Buffer of that size; without one, chunks are collected while their total stays within `limit`.
 * `onChunk` hears the size of every chunk read (see `memory-relief.ts`).
 * @throws BodyReadError 413 when the body exceeds `limit` (declared or streamed), 400 when it ends
 *   before or runs past its declared length or the connection breaks.
 */
export function readBody(
  stream: IncomingMessage,
  limit: number,
  onChunk?: (bytes: number) => void,
): Promise<Buffer> {
  const header = stream.headers['content-length'];
  const declared = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined && declared > limit) {
    return Promise.reject(new BodyReadError('request body too large', 413));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const whole = declared !== undefined ? Buffer.allocUnsafeSlow(declared) : undefined;
    const chunks: Buffer[] = [];
    let length = 0;
    let failed = false;

    function fail(error: BodyReadError): void {
      if (failed) return;
      failed = true;
      stream.removeListener('data', onData);
      // Stop reading: the answer goes out and the connection closes (see the 413 handler).
      stream.resume();
      reject(error);
    }

    function onData(chunk: Buffer): void {
      if (failed) return;
      const next = length + chunk.length;
      if (whole !== undefined) {
        if (next > whole.length) return fail(new BodyReadError('body longer than its Content-Length', 400));
        chunk.copy(whole, length);
      } else {
        if (next > limit) return fail(new BodyReadError('request body too large', 413));
        chunks.push(chunk);
      }
      length = next;
      onChunk?.(chunk.length);
    }

    stream.on('data', onData);
    stream.once('end', () => {
      if (failed) return;
      if (whole !== undefined) {
        if (length !== whole.length) fail(new BodyReadError('body shorter than its Content-Length', 400));
        else resolve(whole);
      } else {
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length));
      }
    });
    stream.once('error', () => fail(new BodyReadError('request body could not be read', 400)));
    stream.once('aborted', () => fail(new BodyReadError('request aborted', 400)));
  });
}
