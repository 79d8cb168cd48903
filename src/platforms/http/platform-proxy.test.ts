/**
 * Platform API calls through the proxy the environment names: a real forward proxy on loopback
 * (absolute-URI requests, as HTTP proxies receive them) records what passes; the Gitea and Azure
 * DevOps platforms read a pull request from their fakes through it with `HTTP_PROXY` (or
 * `http_proxy`) set, and directly when `NO_PROXY` covers the fake's host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAzureDevOps, type FakeAzureDevOps } from '../../../test/support/fake-azure-devops/index.js';
import { createDiffScenario } from '../../../test/support/git-fixtures.js';
import { createAzureDevOpsPlatform } from '../azure-devops/platform.js';
import { createGiteaKit, INDEX, REPO, type GiteaKit } from '../gitea/gitea-test-kit.test-helper.js';

const VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
const ADO_TOKEN = 'ado-proxyPatThatMustNeverLeak0123456789';

/** A forward HTTP proxy that relays absolute-URI requests and records `METHOD url`. */
async function startForwardProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!req.url?.startsWith('http://')) {
      res.writeHead(400).end('a forward proxy takes absolute URIs');
      return;
    }
    const target = new URL(req.url);
    const upstream = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

describe('platform API calls and the proxy variables', () => {
  let proxy: Awaited<ReturnType<typeof startForwardProxy>>;
  let gitea: GiteaKit;
  let ado: FakeAzureDevOps;
  let root: string;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    proxy = await startForwardProxy();
    gitea = await createGiteaKit();
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-proxy-'));
    const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ token: ADO_TOKEN });
    ado.addPullRequest({
      project: 'Fabrikam',
      repo: 'widgets',
      id: 3,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
  });
  afterAll(async () => {
    await ado?.close();
    await gitea?.close();
    await proxy?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const name of VARIABLES) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
    proxy.seen.length = 0;
  });
  afterEach(() => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  const adoPlatform = () =>
    createAzureDevOpsPlatform({
      settings: {
        token: ADO_TOKEN,
        url: ado.collectionUrl,
        webhookUser: undefined,
        webhookSecret: undefined,
      },
      logger: pino({ level: 'silent' }),
    });

  it('Gitea reads a pull request through HTTP_PROXY', async () => {
    process.env.HTTP_PROXY = proxy.url;
    const pr = await gitea.platform().getPullRequest(REPO, INDEX);
    expect(pr.title).toBe('Tune the service constants');
    expect(proxy.seen).toContain(`GET ${gitea.fake.url}/api/v1/repos/${REPO}/pulls/${INDEX}`);
  });

  it('Azure DevOps reads a pull request through http_proxy (lower case)', async () => {
    process.env.http_proxy = proxy.url;
    const pr = await adoPlatform().getPullRequest('Fabrikam/widgets', 3);
    expect(pr.headSha).toMatch(/^[0-9a-f]{40}$/);
    const host = new URL(ado.collectionUrl).host;
    expect(proxy.seen.some((line) => line.startsWith(`GET http://${host}/`))).toBe(true);
    expect(
      proxy.seen.some((line) => line.endsWith('/Fabrikam/_apis/git/repositories/widgets/pullRequests/3')),
    ).toBe(true);
  });

  it.each([
    ['the host', '127.0.0.1'],
    ['the hosts and ports among others', 'internal.example, 127.0.0.1:GITEA 127.0.0.1:ADO'],
    ['*', '*'],
  ])('goes directly when NO_PROXY names %s', async (_what, noProxy) => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = noProxy
      .replace('GITEA', new URL(gitea.fake.url).port)
      .replace('ADO', new URL(ado.collectionUrl).port);
    const pr = await gitea.platform().getPullRequest(REPO, INDEX);
    expect(pr.title).toBe('Tune the service constants');
    const adoPr = await adoPlatform().getPullRequest('Fabrikam/widgets', 3);
    expect(adoPr.headSha).toMatch(/^[0-9a-f]{40}$/);
    expect(proxy.seen).toEqual([]);
  });

  it('proxies a host NO_PROXY does not cover (another port)', async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.no_proxy = '127.0.0.1:1';
    await gitea.platform().getPullRequest(REPO, INDEX);
    expect(proxy.seen.length).toBeGreaterThan(0);
  });

  it('HTTPS_PROXY alone leaves http: URLs direct; a dead HTTP_PROXY fails the call, naming the proxy refusal', async () => {
    process.env.HTTPS_PROXY = proxy.url;
    await gitea.platform().getPullRequest(REPO, INDEX);
    expect(proxy.seen).toEqual([]);

    process.env.HTTP_PROXY = 'http://127.0.0.1:1';
    await expect(gitea.platform().getPullRequest(REPO, INDEX)).rejects.toThrow(/unreachable.*ECONNREFUSED/s);
  });

  it('sends directly without any proxy variable', async () => {
    const pr = await gitea.platform().getPullRequest(REPO, INDEX);
    expect(pr.title).toBe('Tune the service constants');
    expect(proxy.seen).toEqual([]);
  });
});
