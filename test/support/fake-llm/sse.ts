/**
 * Helpers for answering like a real model server: JSON responses, server-sent events written in
 * separate (and deliberately split) TCP writes, and chunking of text into deltas.
 */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTick } from 'node:timers/promises';

/** Sends `body` as JSON (a string body as text/plain) with `status` and extra `headers`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts an SSE response (200, `text/event-stream`) and disables Nagle so writes leave at once. */
export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.socket?.setNoDelay(true);
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

/**
 * Writes each SSE frame (already formatted, ending in a blank line) in two writes split mid-frame,
 * yielding to the event loop between writes, so clients see partial lines and several chunks.
 * Stops quietly when the client has gone away.
 */
export async function writeFrames(res: ServerResponse, frames: string[]): Promise<void> {
  for (const frame of frames) {
    for (const piece of splitText(frame, 2)) {
      if (res.destroyed || res.writableEnded) return;
      res.write(piece);
      await nextTick();
    }
  }
  if (!res.destroyed && !res.writableEnded) res.end();
}

/** Formats one SSE frame: an optional `event:` line and one `data:` line of JSON (or raw text). */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

/**
 * Splits `text` into at most `parts` non-empty pieces of about equal length, never inside a
 * surrogate pair. An empty string gives no pieces.
 */
export function splitText(text: string, parts: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const count = Math.max(1, Math.min(parts, chars.length));
  const size = Math.ceil(chars.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += size)
    pieces.push(chars.slice(start, start + size).join(''));
  return pieces;
}

/** A rough token count of `text`: one token per 4 characters, at least 1. */
export function estimateTokens(text: string): number {
  return tokensOfChars(text.length);
}

/** `estimateTokens` of a text of `chars` characters (for prefixes measured without building them). */
export function tokensOfChars(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}
