/**
 * End to end on Azure DevOps with a project whose name holds a space (`Fabrikam Fiber`, as Azure
 * DevOps allows): `reviewbot serve` (the built CLI) takes a mention of the REVIEWER and posts the
 * review, the WORKER commits and pushes, a push is reviewed again in the same workspace, and the
 * CLI reviews the pull request by its URL. The workspace, its lock and the repository's object
 * store live under the escaped directory `Fabrikam%20Fiber`. The allow lists name the user and the
 * repository for Azure DevOps only (`azure-devops:Fabrikam Fiber/widgets`).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, type FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import type { FakeLlm } from '../support/fake-llm/index.js';
import type { DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  ALICE,
  bareGit,
  BOT,
  createAzureDevOpsFixture,
  REPO,
  WORKER,
  type AzureDevOpsFixture,
} from './azure-devops-fixture.js';
import { reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const TOKEN = 'ado-e2e-spaces-pat-that-must-never-leak';
const PROJECT = 'Fabrikam Fiber';

describe('Azure DevOps: a project named with a space', () => {
  let fx: AzureDevOpsFixture;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let server: ServeProcess;
  const repoDir = () => path.join(fx.baseDir, 'azure-devops', 'Fabrikam%20Fiber', REPO);

  beforeAll(async () => {
    fx = await createAzureDevOpsFixture({
      prefix: 'reviewbot-ado-spaces-',
      token: TOKEN,
      project: PROJECT,
      fake: { botUniqueName: BOT },
    });
    ({ scenario, ado, llm } = fx);
    server = await startServe({
      ...fx.serveEnv,
      ALLOWED_USERS: `azure-devops:${ALICE.uniqueName}`,
      ALLOWED_REPOS: `azure-devops:${PROJECT}/${REPO}`,
      REVIEWER_TRIGGERS: 'pr_push',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      CLEANUP_INTERVAL_HOURS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it('a mention of the REVIEWER posts the review; the workspace and its store live under the escaped name', async () => {
    llm.setScript(reviewScript(scenario));
    const { event } = await fx.mention(`@<${ado.botId}> please review`);
    expect(await fx.deliver(server, event)).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const summary = await waitFor(
      () =>
        ado
          .threads(PROJECT, REPO, 7)
          .find((t) => t.comments[0]?.content.includes('The constants change looks deliberate')),
      60_000,
      'summary',
    );
    expect(summary.comments[0]?.author).toBe(BOT);
    expect(ado.threads(PROJECT, REPO, 7).filter((t) => t.threadContext)).toHaveLength(3);
    await waitFor(() => ado.statuses(PROJECT, REPO, 7).length >= 2, 20_000, 'final status');
    expect(ado.statuses(PROJECT, REPO, 7).map((s) => s.state)).toEqual(['pending', 'succeeded']);
    expect(existsSync(path.join(repoDir(), 'pr-7', '.git'))).toBe(true);
    expect(existsSync(path.join(repoDir(), '.store', 'git', 'objects'))).toBe(true);
    // Nothing was made under the unescaped name, and nothing else beside the project directory.
    expect(readdirSync(path.join(fx.baseDir, 'azure-devops'))).toEqual(['Fabrikam%20Fiber']);
    expect(ado.violations).toEqual([]);
  });

  it('the WORKER commits and pushes; the push is reviewed again in the same workspace', async () => {
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    llm.setScript([
      {
        toolCalls: [
          {
            name: 'Edit',
            input: {
              file_path: 'src/service.ts',
              old_string: 'export const v3 = 300;',
              new_string: 'export const v3 = 301;',
            },
          },
        ],
      },
      { text: 'Bumped v3 to 301 in src/service.ts.' },
    ]);
    const { thread, event } = await fx.mention(`@${WORKER} bump v3 to 301`);
    expect((await fx.deliver(server, event)).json).toEqual({ status: 'accepted' });
    await waitFor(
      () => thread.comments.find((c) => c.content.includes('Bumped v3 to 301')),
      60_000,
      'worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);

    llm.setScript([summaryReply('Looked at the push: fine.')]);
    const pr = await ado.pullRequestJson(PROJECT, REPO, 7);
    expect((await fx.deliver(server, pullRequestEvent('git.pullrequest.updated', pr))).json).toEqual({
      status: 'accepted',
    });
    await waitFor(
      () => ado.threads(PROJECT, REPO, 7).find((t) => t.comments[0]?.content.includes('Looked at the push')),
      60_000,
      'review of the push',
    );
    expect(readdirSync(repoDir()).filter((n) => n.startsWith('pr-7'))).toContain('pr-7');
    expect(ado.violations).toEqual([]);
  });

  it('the CLI reviews the pull request by its URL (the project URL-encoded) in the same workspace', async () => {
    llm.setScript([summaryReply('Nothing new.')]);
    const url = `${ado.url}/acme/${encodeURIComponent(PROJECT)}/_git/${REPO}/pullrequest/7`;
    const result = await runCli(['review', url, '--dry-run', '--json'], {
      ...fx.env,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
    });
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const head = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    // The review of the push (made by serve in this workspace) is found: its head is this head.
    expect(JSON.parse(result.stdout)).toMatchObject({
      summary: 'Nothing new.',
      incremental: { sinceSha: head },
    });
    expect(readdirSync(path.join(fx.baseDir, 'azure-devops'))).toEqual(['Fabrikam%20Fiber']);
  });
});
