/**
 * The CLI authenticated as a GitHub App: the installation token is minted from the App's JWT, used
 * for the API and for git, and appears in no workspace file and no output line; the review is
 * posted as `<slug>[bot]`, whose earlier findings count as the bot's own.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAppKeyPair, startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { filesContaining, LLM_KEY, reviewLines, reviewScript } from './cli-fixture.js';

describe('reviewbot review as a GitHub App', () => {
  const keys = generateAppKeyPair();
  let root: string;
  let github: FakeGitHub;
  let llm: FakeLlm;
  let scenario: DiffScenario;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-app-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    github = await startFakeGitHub({
      token: 'ghp_unusedPersonalToken000000000000',
      app: { appId: 4242, installationId: 77, slug: 'acme-reviewer', publicKeyPem: keys.publicKeyPem },
    });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 3,
      bareRepoPath: scenario.bareRepoPath,
      base: scenario.base,
      head: scenario.head,
      title: 'App review',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    mkdirSync(path.join(root, 'ws'), { recursive: true });
    env = {
      CODEHOST_APP_ID: '4242',
      CODEHOST_INSTALLATION_ID: '77',
      // One-line secrets often carry the key with literal "\n".
      CODEHOST_APP_PRIVATE_KEY: keys.privateKeyPem.replace(/\n/g, '\\n'),
      CODEHOST_API_URL: github.url,
      WORKSPACE_BASE_DIR: path.join(root, 'ws'),
      HOME: root,
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await github?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reviews with an installation token that never leaks', async () => {
    llm.setScript(reviewScript(scenario));
    const result = await runCli(['review', 'acme/widgets#3'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(github.installationTokens.length).toBeGreaterThan(0);
    // Least privilege (CONTRACT §16): one token, for this repository, with a REVIEWER's permissions.
    const mints = github.requests.filter((r) => r.operationId === 'apps/create-installation-access-token');
    expect(mints.map((r) => r.body)).toEqual([
      {
        repositories: ['widgets'],
        permissions: { contents: 'read', pull_requests: 'write', issues: 'write', checks: 'write' },
      },
    ]);
    // git asks anonymously first (401), then with the installation token.
    expect(github.gitRequests.some((r) => r.authorized)).toBe(true);
    expect(github.reviews).toHaveLength(1);
    expect(github.reviews[0]!.user?.login).toBe('acme-reviewer[bot]');
    for (const token of github.installationTokens) {
      expect(filesContaining(path.join(root, 'ws'), token)).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(token);
    }
    // Progress (CONTRACT §18): one `reviewbot` check run on the head, in progress then neutral,
    // its summary carrying the receipt; created with the scoped token (checks: write).
    expect(github.checkRuns).toEqual([
      expect.objectContaining({
        name: 'reviewbot',
        head_sha: scenario.headSha,
        status: 'completed',
        conclusion: 'neutral',
        details_url: github.reviews[0]!.html_url,
      }),
    ]);
    const run = github.checkRuns[0]!;
    expect(run.output.title).toMatch(/^Reviewed: \d+ findings? · /);
    expect(run.output.summary).toContain('<summary>Review receipt:');
    const checkCalls = github.requests.filter((r) => r.operationId?.startsWith('checks/'));
    expect(checkCalls.map((r) => [r.operationId, (r.body as { status?: string }).status])).toEqual([
      ['checks/create', 'in_progress'],
      ['checks/update', 'completed'],
    ]);
    expect(github.statuses).toEqual([]);
    expect(github.violations).toEqual([]);
  });

  it('drops findings the App already posted (its login is <slug>[bot])', async () => {
    llm.setScript(reviewScript(scenario));
    const result = await runCli(['review', 'acme/widgets#3', '--dry-run', '--json'], env);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { findings: unknown[]; rejected: unknown[] };
    expect(parsed.findings).toEqual([]);
    expect(parsed.rejected).toEqual([expect.objectContaining({ path: reviewLines(scenario).offDiff.path })]);
  });
});
