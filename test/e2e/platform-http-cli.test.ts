/**
 * End to end, the built CLI on two platforms while the API is unwell: a 503 whose `Retry-After` is
 * an HTTP-date is waited out and the review still succeeds (Gitea posts it; Bitbucket Cloud reviews
 * with --dry-run); an API that cannot be reached (a closed port, an `.invalid` host) ends the
 * command with one line naming the variable to check, never a "500".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';

const TOKEN = 'http-e2eTokenThatMustNeverLeak0123456789';
const REPO = 'acme/widgets';

/** An HTTP-date two seconds ahead (whole seconds: the wait is one to two seconds). */
const soon = () => new Date(Date.now() + 2000).toUTCString();

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('reviewbot review while the platform API is unwell', () => {
  let root: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let bitbucket: FakeBitbucketCloud;
  let llm: FakeLlm;
  let common: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-http-e2e-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    gitea = await startFakeGitea({ token: TOKEN, username: 'reviewbot-gitea' });
    gitea.addPullRequest({
      ...{ repo: REPO, index: 7, bareRepoPath: scenario.bareRepoPath },
      ...{ headBranch: scenario.head, baseBranch: scenario.base, title: 'Tune the service constants' },
    });
    bitbucket = await startFakeBitbucketCloud({ token: TOKEN, nickname: 'reviewbot-bb' });
    bitbucket.addPullRequest({
      ...{ repo: REPO, id: 7, bareRepoPath: scenario.bareRepoPath },
      ...{ headBranch: scenario.head, baseBranch: scenario.base, title: 'Tune the service constants' },
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    common = {
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: root,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await gitea?.close();
    await bitbucket?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('Gitea: waits out a 503 with an HTTP-date Retry-After and posts the review', async () => {
    llm.setScript(reviewScript(scenario));
    gitea.failNext(
      'GET',
      /\/repos\/acme\/widgets\/pulls\/7$/,
      503,
      { message: 'maintenance' },
      {
        'retry-after': soon(),
      },
    );
    const env = { ...common, GITEA_TOKEN: TOKEN, GITEA_URL: gitea.url, LOG_LEVEL: 'info' };
    const result = await runCli(['review', `${REPO}#7`, '--platform', 'gitea'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Gitea API answered 503; retrying');
    const reads = gitea.requests.filter((r) => r.method === 'GET' && /\/pulls\/7$/.test(r.path));
    expect(reads[0]?.status).toBe(503);
    expect(reads.slice(1).every((r) => r.status === 200)).toBe(true);
    expect(gitea.reviews).toHaveLength(1);
    expect(gitea.violations).toEqual([]);
  });

  it('Bitbucket Cloud: waits out a 503 with an HTTP-date Retry-After and reviews (--dry-run)', async () => {
    llm.setScript(reviewScript(scenario));
    bitbucket.failNext('GET', /\/repositories\/acme\/widgets\/pullrequests\/7$/, 503, {
      'retry-after': soon(),
    });
    const env = { ...common, BITBUCKET_TOKEN: TOKEN, BITBUCKET_API_URL: bitbucket.apiUrl };
    const result = await runCli(['review', `${REPO}#7`, '--platform', 'bitbucket', '--dry-run'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Review of ${REPO}#7 "Tune the service constants"`);
    const reads = bitbucket.requests.filter((r) => r.method === 'GET' && /\/pullrequests\/7$/.test(r.path));
    expect(reads.map((r) => r.status).slice(0, 2)).toEqual([503, 200]);
    expect(bitbucket.writeRequests()).toEqual([]);
    expect(bitbucket.violations).toEqual([]);
  });

  it.each([
    ['github', 'CODEHOST_TOKEN', 'CODEHOST_API_URL', 'GitHub', 'closed'],
    ['gitea', 'GITEA_TOKEN', 'GITEA_URL', 'Gitea', 'invalid'],
  ] as const)(
    '%s: an unreachable API ends with one line naming its URL variable',
    async (name, tokenVar, urlVar, display, kind) => {
      const url = kind === 'closed' ? `http://127.0.0.1:${await closedPort()}` : 'http://reviewbot.invalid';
      const env = { ...common, [tokenVar]: TOKEN, [urlVar]: url };
      const result = await runCli(['review', `${REPO}#7`, '--platform', name, '--dry-run'], env);
      expect(result.code).toBe(1);
      const lines = result.stderr.split('\n').filter((l) => l.startsWith('reviewbot: '));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^reviewbot: ${display} API unreachable while trying to .+: check the network or ${urlVar}$`,
        ),
      );
      expect(lines[0]).toMatch(kind === 'closed' ? /ECONNREFUSED/ : /ENOTFOUND|EAI_AGAIN/);
      // No status made up for a request nothing answered (Octokit's "GET /… - 500 …").
      expect(result.stderr).not.toMatch(/ 500\b|\b500 /);
      expect(result.stderr).not.toContain(TOKEN);
    },
  );
});
