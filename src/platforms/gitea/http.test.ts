/**
 * The Gitea HTTP layer against the fake Gitea: bounded retries (GET on 5xx, any method on 429 with
 * `Retry-After`, never a POST on 5xx, which Gitea may have applied), Gitea's error messages, and
 * page/limit pagination.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGiteaKit, INDEX, REPO, TOKEN, type GiteaKit } from './gitea-test-kit.test-helper.js';
import { NetworkError, PlatformHttpError } from '../http/index.js';
import { createGiteaHttp } from './http.js';

describe('Gitea HTTP layer', () => {
  let kit: GiteaKit;
  beforeAll(async () => {
    kit = await createGiteaKit();
  });
  afterAll(async () => {
    await kit?.close();
  });
  const http = () =>
    createGiteaHttp({ url: kit.fake.url, token: TOKEN, retry: { attempts: 3, baseDelayMs: 10 } });
  const path = `/repos/${REPO}/pulls/${INDEX}`;
  const sent = (method: string, suffix: string) =>
    kit.fake.requests.filter((r) => r.method === method && r.path.endsWith(suffix)).length;

  it('retries a GET after a 502 and a 429', async () => {
    const before = sent('GET', `/pulls/${INDEX}`);
    kit.fake.failNext('GET', /\/pulls\/3$/, 502);
    kit.fake.failNext('GET', /\/pulls\/3$/, 429);
    const { status, body } = await http().request('GET', path);
    expect(status).toBe(200);
    expect(body).toMatchObject({ number: INDEX });
    expect(sent('GET', `/pulls/${INDEX}`) - before).toBe(3);
  });

  it('never repeats a POST after a 5xx, but does after a 429; keeps Gitea message', async () => {
    const before = sent('POST', '/comments');
    kit.fake.failNext('POST', /\/comments$/, 500, { message: 'database is locked' });
    const error = await http()
      .request('POST', `/repos/${REPO}/issues/${INDEX}/comments`, { body: { body: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformHttpError);
    expect(error).toMatchObject({ status: 500, message: 'database is locked' });
    expect(sent('POST', '/comments') - before).toBe(1);
    kit.fake.failNext('POST', /\/comments$/, 429);
    await http().request('POST', `/repos/${REPO}/issues/${INDEX}/comments`, { body: { body: 'y' } });
    expect(sent('POST', '/comments') - before).toBe(3);
    expect(kit.fake.comments.map((c) => c.body)).toEqual(['y']);
    expect(kit.fake.violations).toEqual([]);
  });

  it('reports an unreachable server as a NetworkError with the system code', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', () => listening()));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((done) => closed.close(() => done()));
    const dead = createGiteaHttp({ url: `http://127.0.0.1:${port}`, token: TOKEN, retry: { attempts: 1 } });
    const error = await dead.request('GET', '/user').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      code: 'ECONNREFUSED',
      message: `connection refused (ECONNREFUSED) at 127.0.0.1:${port}`,
    });
  });
});
