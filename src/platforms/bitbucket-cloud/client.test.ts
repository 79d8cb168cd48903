/**
 * The Bitbucket Cloud client's `next` link rule: a paginated answer is followed only to links under
 * the API base (same origin, path at a `/` boundary), so a forged `next` never receives the token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBitbucketClient, isUnderApi } from './client.js';

const TOKEN = 'bb-client-token-that-must-never-leak';
const Item = z.object({ id: z.number() });
const API = 'https://api.bitbucket.test/2.0';

describe('Bitbucket Cloud client pagination', () => {
  let server: Server;
  let origin: string;
  const seen: Array<{ path: string; auth: string | undefined }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ values: [{ id: 2 }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('follows a next link under the API base', async () => {
    const client = createBitbucketClient({ apiUrl: `${origin}/2.0`, token: TOKEN });
    seen.length = 0;
    const all = await client.all(Item, {
      values: [{ id: 1 }],
      next: `${origin}/2.0/repositories/a/b?page=2`,
    });
    expect(all).toEqual([{ id: 1 }, { id: 2 }]);
    expect(seen).toEqual([{ path: '/2.0/repositories/a/b?page=2', auth: `Bearer ${TOKEN}` }]);
  });

  it.each([
    ['a path sharing the base as a prefix', API, 'https://api.bitbucket.test/2.0evil/repositories?page=2'],
    // An API base without a path (a proxy): a longer host name started with it.
    [
      'a host that starts with the API host',
      'https://api.bitbucket.test',
      'https://api.bitbucket.test.evil.test/x',
    ],
    ['user info before the host', API, 'https://u:p@api.bitbucket.test/2.0/x?page=2'],
  ])('refuses %s without sending the token', async (_what, apiUrl, next) => {
    // A recording fetch answering a page: the old prefix check would have sent the token there.
    const sent: string[] = [];
    const client = createBitbucketClient({
      apiUrl,
      token: TOKEN,
      fetch: (input) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return Promise.resolve(Response.json({ values: [{ id: 2 }] }));
      },
    });
    await expect(client.all(Item, { values: [{ id: 1 }], next })).rejects.toThrow('next link off the API');
    expect(sent).toEqual([]);
  });

  it('isUnderApi compares origin and path segments', () => {
    const api = 'https://api.bitbucket.org/2.0';
    expect(isUnderApi('https://api.bitbucket.org/2.0/repositories?page=2', api)).toBe(true);
    expect(isUnderApi('https://api.bitbucket.org.evil.com/2.0/repositories', api)).toBe(false);
    expect(isUnderApi('https://api.bitbucket.org/2.0evil/x', api)).toBe(false);
    expect(isUnderApi('http://api.bitbucket.org/2.0/x', api)).toBe(false);
    expect(isUnderApi('https://api.bitbucket.org:8443/2.0/x', api)).toBe(false);
    expect(isUnderApi('https://api.bitbucket.org/2.0/../x', api)).toBe(false);
    expect(isUnderApi('not a url', api)).toBe(false);
    expect(isUnderApi('https://api.bitbucket.org/2.0/x', 'https://api.bitbucket.org/2.0/')).toBe(true);
  });
});
