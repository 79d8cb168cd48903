/**
 * The shared transport over real HTTP to a scripted local server: HTTP-date `Retry-After` waited,
 * a wait beyond the cap refused at once, an abort during a wait, bodies replayed only where a
 * repeat is safe, and the mapped error a user reads.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, PlatformError } from '../../errors.js';
import { httpErrorOf } from './http-error.js';
import { platformCall, type PlatformHttpNames } from './map-error.js';
import { createPlatformFetch } from './platform-fetch.js';

interface Seen {
  method: string;
  body: string;
  at: number;
}
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

const NAMES: PlatformHttpNames = {
  platform: 'Example',
  urlVariable: 'EXAMPLE_URL',
  credentialsHint: 'EXAMPLE_TOKEN',
  forbiddenHint: 'forbidden',
};
const TOKEN = 'example-tokenThatMustNeverLeak0123456789';

/** An HTTP date `seconds` ahead (whole seconds: the wait is between seconds - 1 and seconds). */
const dateAhead = (seconds: number) => new Date(Date.now() + seconds * 1000).toUTCString();

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

describe('createPlatformFetch', () => {
  let server: Server;
  let url: string;
  let script: Scripted[] = [];
  let seen: Seen[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ method: req.method ?? '', body, at: Date.now() });
        const next = script.shift() ?? { status: 200, body: '{"ok":true}' };
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(next.body ?? '');
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/thing`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });
  beforeEach(() => {
    script = [];
    seen = [];
  });
  const send = createPlatformFetch({ platform: 'Example' });

  it('waits until the HTTP-date of a 503 Retry-After, then succeeds', async () => {
    script = [{ status: 503, headers: { 'retry-after': dateAhead(2) }, body: '{"message":"maintenance"}' }];
    const started = Date.now();
    const response = await send(url);
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails at once when Retry-After asks for longer than the cap, saying so', async () => {
    script = [{ status: 429, headers: { 'retry-after': '120' }, body: '{"message":"slow down"}' }];
    const started = Date.now();
    const error = await platformCall(NAMES)('fetch the thing', async () => {
      const response = await send(url);
      throw await httpErrorOf(response);
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as Error).message).toBe(
      'Example API error while trying to fetch the thing: 429 slow down (asked to retry after 120 s, longer than reviewbot waits; try again later)',
    );
  });

  it('stops promptly when the caller aborts during a Retry-After wait', async () => {
    script = [{ status: 503, headers: { 'retry-after': dateAhead(20) } }];
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const error = await send(url, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen).toHaveLength(1);
    const mapped = await platformCall(NAMES)('fetch the thing', () => Promise.reject(error)).catch(
      (e: unknown) => e,
    );
    expect((mapped as Error).message).toBe('Example API call was aborted while trying to fetch the thing');
  });

  it('replays a PUT body (string or Request) after a 502, never a POST after a 500', async () => {
    script = [{ status: 502 }];
    expect((await send(url, { method: 'PUT', body: '{"resolved":true}' })).status).toBe(200);
    script = [{ status: 502 }];
    expect((await send(new Request(url, { method: 'PUT', body: '{"state":"x"}' }))).status).toBe(200);
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ['PUT', '{"resolved":true}'],
      ['PUT', '{"resolved":true}'],
      ['PUT', '{"state":"x"}'],
      ['PUT', '{"state":"x"}'],
    ]);
    seen = [];
    script = [{ status: 500, body: '{"message":"database is locked"}' }];
    const response = await send(url, { method: 'POST', body: '{"body":"hi"}' });
    expect(response.status).toBe(500);
    expect(seen).toHaveLength(1);
  });

  it('repeats a POST refused with 429 (the server did not act on it)', async () => {
    script = [{ status: 429, headers: { 'retry-after': '0' } }];
    const response = await send(url, { method: 'POST', body: '{"body":"hi"}' });
    expect(response.status).toBe(200);
    expect(seen.map((s) => s.body)).toEqual(['{"body":"hi"}', '{"body":"hi"}']);
  });

  it('gives up after three attempts and hands back the last answer', async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }];
    const response = await createPlatformFetch({ platform: 'Example', retry: { baseDelayMs: 10 } })(url);
    expect(response.status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('maps a rejected token to AuthError and masks the token the platform echoed', async () => {
    script = [{ status: 401, body: JSON.stringify({ message: `bad token ${TOKEN}` }) }];
    const error = await platformCall(NAMES, [TOKEN])('fetch the thing', async () => {
      throw await httpErrorOf(await send(url));
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toBe(
      'Example rejected the credentials while trying to fetch the thing (401 bad token ***); check EXAMPLE_TOKEN',
    );
  });
});
