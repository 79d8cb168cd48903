/**
 * The HTTP layer through each of the six platforms, over real HTTP to its fake: a 503 whose
 * `Retry-After` is an HTTP-date is waited out and the pull request still read; an API URL that
 * cannot be reached (a closed local port, an `.invalid` host) gives one line naming the variable to
 * check, never a 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAzureDevOps } from '../../../test/support/fake-azure-devops/index.js';
import { startFakeBitbucketCloud } from '../../../test/support/fake-bitbucket-cloud/index.js';
import { startFakeBitbucketServer } from '../../../test/support/fake-bitbucket-server/index.js';
import { startFakeGitea } from '../../../test/support/fake-gitea/index.js';
import { startFakeGitHub } from '../../../test/support/fake-github/index.js';
import { startFakeGitLab } from '../../../test/support/fake-gitlab/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import { PlatformError } from '../../errors.js';
import { buildPlatforms, type Platform, type PlatformName } from '../index.js';

const TOKEN = 'platform-http-tokenThatMustNeverLeak0123456789';
const logger = pino({ level: 'silent' });

/** A started fake with pull request 3 of `repo` and a one-shot 503 on reading it. */
interface Served {
  env: NodeJS.ProcessEnv;
  fail503(retryAfter: string): void;
  /** GET requests reading the pull request so far. */
  reads(): number;
  violations(): unknown[];
  close(): Promise<void>;
}

interface Case {
  name: PlatformName;
  /** The variable naming the API URL, and the URL to give it for `host:port`. */
  urlVariable: string;
  urlOf(host: string): string;
  tokenVariable: string;
  repo: string;
  /** The platform's display name in errors. */
  display: string;
  serve(scenario: DiffScenario): Promise<Served>;
}

const reads = (requests: Array<{ method: string; path: string }>, pr: RegExp) => () =>
  requests.filter((r) => r.method === 'GET' && pr.test(r.path)).length;

const CASES: Case[] = [
  {
    name: 'github',
    display: 'GitHub',
    urlVariable: 'CODEHOST_API_URL',
    urlOf: (host) => `http://${host}`,
    tokenVariable: 'CODEHOST_TOKEN',
    repo: 'acme/widgets',
    async serve(scenario) {
      const fake = await startFakeGitHub({ token: TOKEN });
      await fake.addPullRequest({
        ...{ owner: 'acme', repo: 'widgets', number: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ base: scenario.base, head: scenario.head, title: 'Tune' },
      });
      const pr = /^\/repos\/acme\/widgets\/pulls\/3$/;
      return {
        env: { CODEHOST_TOKEN: TOKEN, CODEHOST_API_URL: fake.url },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, undefined, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'gitlab',
    display: 'GitLab',
    urlVariable: 'GITLAB_URL',
    urlOf: (host) => `http://${host}`,
    tokenVariable: 'GITLAB_TOKEN',
    repo: 'acme/widgets',
    async serve(scenario) {
      const fake = await startFakeGitLab({ token: TOKEN });
      await fake.addMergeRequest({
        ...{ project: 'acme/widgets', iid: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ sourceBranch: scenario.head, targetBranch: scenario.base, title: 'Tune' },
      });
      const pr = /\/merge_requests\/3$/;
      return {
        env: { GITLAB_TOKEN: TOKEN, GITLAB_URL: fake.url },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, undefined, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'gitea',
    display: 'Gitea',
    urlVariable: 'GITEA_URL',
    urlOf: (host) => `http://${host}`,
    tokenVariable: 'GITEA_TOKEN',
    repo: 'acme/widgets',
    async serve(scenario) {
      const fake = await startFakeGitea({ token: TOKEN });
      fake.addPullRequest({
        ...{ repo: 'acme/widgets', index: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ headBranch: scenario.head, baseBranch: scenario.base, title: 'Tune' },
      });
      const pr = /\/repos\/acme\/widgets\/pulls\/3$/;
      return {
        env: { GITEA_TOKEN: TOKEN, GITEA_URL: fake.url },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, undefined, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'bitbucket',
    display: 'Bitbucket',
    urlVariable: 'BITBUCKET_API_URL',
    urlOf: (host) => `http://${host}/2.0`,
    tokenVariable: 'BITBUCKET_TOKEN',
    repo: 'acme/widgets',
    async serve(scenario) {
      const fake = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'rb' });
      fake.addPullRequest({
        ...{ repo: 'acme/widgets', id: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ headBranch: scenario.head, baseBranch: scenario.base },
      });
      const pr = /\/repositories\/acme\/widgets\/pullrequests\/3$/;
      return {
        env: { BITBUCKET_TOKEN: TOKEN, BITBUCKET_API_URL: fake.apiUrl },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'bitbucket-server',
    display: 'Bitbucket Data Center',
    urlVariable: 'BITBUCKET_SERVER_URL',
    urlOf: (host) => `http://${host}`,
    tokenVariable: 'BITBUCKET_SERVER_TOKEN',
    repo: 'ACME/widgets',
    async serve(scenario) {
      const fake = await startFakeBitbucketServer({ token: TOKEN, username: 'rb' });
      fake.addPullRequest({
        ...{ repo: 'ACME/widgets', id: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ headBranch: scenario.head, baseBranch: scenario.base },
      });
      const pr = /\/pull-requests\/3$/;
      return {
        env: { BITBUCKET_SERVER_TOKEN: TOKEN, BITBUCKET_SERVER_URL: fake.url },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'azure-devops',
    display: 'Azure DevOps',
    urlVariable: 'AZURE_DEVOPS_URL',
    urlOf: (host) => `http://${host}/acme`,
    tokenVariable: 'AZURE_DEVOPS_TOKEN',
    repo: 'Fabrikam/widgets',
    async serve(scenario) {
      const fake = await startFakeAzureDevOps({ token: TOKEN });
      fake.addPullRequest({
        ...{ project: 'Fabrikam', repo: 'widgets', id: 3, bareRepoPath: scenario.bareRepoPath },
        ...{ headBranch: scenario.head, baseBranch: scenario.base },
      });
      const pr = /\/pullrequests\/3$/i;
      return {
        env: { AZURE_DEVOPS_TOKEN: TOKEN, AZURE_DEVOPS_URL: fake.collectionUrl },
        fail503: (retryAfter) => fake.failNext('GET', pr, 503, { 'retry-after': retryAfter }),
        reads: reads(fake.requests, pr),
        violations: () => fake.violations,
        close: () => fake.close(),
      };
    },
  },
];

async function platformFor(name: PlatformName, env: NodeJS.ProcessEnv): Promise<Platform> {
  const platform = (await buildPlatforms({ env, logger })).get(name);
  if (!platform) throw new Error(`${name} not configured`);
  return platform;
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('the HTTP layer on each platform', () => {
  let root: string;
  let scenario: DiffScenario;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-platform-http-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.each(CASES)(
    '$name waits out a 503 with an HTTP-date Retry-After and reads the pull request',
    async (c) => {
      const served = await c.serve(scenario);
      try {
        const platform = await platformFor(c.name, served.env);
        served.fail503(new Date(Date.now() + 2000).toUTCString());
        const started = Date.now();
        const pr = await platform.getPullRequest(c.repo, 3);
        expect(pr.headSha).toBe(scenario.headSha);
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        expect(served.reads()).toBe(2);
        expect(served.violations()).toEqual([]);
      } finally {
        await served.close();
      }
    },
  );

  it.each(CASES)('$name names its URL variable when the port is closed or the host unknown', async (c) => {
    const port = await closedPort();
    for (const [host, reason] of [
      [`127.0.0.1:${port}`, `connection refused \\(ECONNREFUSED\\) at 127\\.0\\.0\\.1:${port}`],
      [
        'reviewbot.invalid',
        'host name (not found \\(ENOTFOUND\\)|lookup failed \\(EAI_AGAIN\\)) at reviewbot\\.invalid',
      ],
    ] as const) {
      const platform = await platformFor(c.name, {
        [c.tokenVariable]: TOKEN,
        [c.urlVariable]: c.urlOf(host),
      });
      const error = await platform.getPullRequest(c.repo, 3).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).status).toBeUndefined();
      const message = (error as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^${c.display} API unreachable while trying to .+ \\(${reason}\\): check the network or ${c.urlVariable}$`,
        ),
      );
      expect(message).not.toContain('\n');
      expect(message).not.toContain(TOKEN);
    }
  });
});
