/**
 * A GitHub App installed without the Checks permission (installed before reviewbot asked for it):
 * GitHub refuses (422) a token request that asks for `checks: write`, so the job asks again without
 * it and the review is posted with no check run — progress never fails the job (CONTRACT §18).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAppKeyPair, startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';

describe('reviewbot review as a GitHub App without the Checks permission', () => {
  const keys = generateAppKeyPair();
  let root: string;
  let github: FakeGitHub;
  let llm: FakeLlm;
  let scenario: DiffScenario;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-app-nochecks-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    github = await startFakeGitHub({
      token: 'ghp_unusedPersonalToken000000000000',
      app: {
        appId: 4243,
        installationId: 78,
        slug: 'acme-reviewer',
        publicKeyPem: keys.publicKeyPem,
        installationPermissions: { contents: 'write', issues: 'write', pull_requests: 'write' },
      },
    });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 3,
      bareRepoPath: scenario.bareRepoPath,
      base: scenario.base,
      head: scenario.head,
      title: 'App review without checks',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    mkdirSync(path.join(root, 'ws'), { recursive: true });
  });

  afterAll(async () => {
    await llm?.close();
    await github?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('retries the token without checks, posts the review and draws no check run', async () => {
    llm.setScript(reviewScript(scenario));
    const result = await runCli(['review', 'acme/widgets#3'], {
      CODEHOST_APP_ID: '4243',
      CODEHOST_INSTALLATION_ID: '78',
      CODEHOST_APP_PRIVATE_KEY: keys.privateKeyPem,
      CODEHOST_API_URL: github.url,
      WORKSPACE_BASE_DIR: path.join(root, 'ws'),
      HOME: root,
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('does not grant Checks');
    const mints = github.requests.filter((r) => r.operationId === 'apps/create-installation-access-token');
    expect(mints.map((r) => r.body)).toEqual([
      {
        repositories: ['widgets'],
        permissions: { contents: 'read', pull_requests: 'write', issues: 'write', checks: 'write' },
      },
      {
        repositories: ['widgets'],
        permissions: { contents: 'read', pull_requests: 'write', issues: 'write' },
      },
    ]);
    expect(github.reviews).toHaveLength(1);
    expect(github.checkRuns).toEqual([]);
  });
});
