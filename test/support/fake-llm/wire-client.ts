/**
 * A minimal HTTP client for the wire tests of the fake LLM servers: JSON requests and SSE
 * responses read frame by frame, with no SDK in between.
 */

/** Parsed JSON of unknown shape, indexed freely by the tests that assert on it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON is asserted field by field
export type Loose = any;

/** Status and parsed JSON body (undefined when empty) of one response. */
export interface Answer {
  status: number;
  json: Loose;
}

/** One SSE frame: its `event:` name (if any) and `data:` (parsed JSON, or the raw `[DONE]`). */
export interface SseFrame {
  event: string | undefined;
  data: Loose;
}

/** Sends `body` (a string verbatim, anything else as JSON) to `url + path`; GET sends no body. */
export async function send(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  method = 'POST',
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Loose) : undefined };
}

/**
 * POSTs `body` and reads the SSE answer. Returns the response content type, its frames and how
 * many network reads delivered them (more than one shows the server really streamed).
 */
export async function readSse(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ contentType: string | null; frames: SseFrame[]; reads: number }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  let raw = '';
  let reads = 0;
  const decoder = new TextDecoder();
  for await (const chunk of response.body ?? []) {
    reads += 1;
    raw += decoder.decode(chunk as Uint8Array, { stream: true });
  }
  const frames = raw
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? data : (JSON.parse(data) as Loose) };
    });
  return { contentType: response.headers.get('content-type'), frames, reads };
}
