/**
 * A WORKER job on Gitea through a real `reviewbot run-job` process (the cluster Job pod's entry
 * point): it clones the pull request from the fake Gitea, edits a file as the scripted model asks,
 * pushes the commit to the head branch over git HTTP as the bot's own login with the token as
 * password (CONTRACT §4, §16), and replies in the pull request with the commit's SHA. The token never
 * reaches the model, the pushed commit, the reply or a log line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPayload } from '../../src/jobs/types.js';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, runGitAsync, type DiffScenario } from '../support/git-fixtures.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import { LLM_KEY } from './cli-fixture.js';

const GITEA_TOKEN = 'gitea-workerTokenThatMustNeverLeak012345';
const BOT = 'rb-worker';

describe('WORKER on Gitea through run-job', () => {
  let root: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let redis: RedisServer;
  let result: CliResult;
  let before: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-worker-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    gitea = await startFakeGitea({ token: GITEA_TOKEN, username: BOT });
    gitea.addPullRequest({
      repo: 'acme/widgets',
      index: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    redis = await startRedis();
    before = (await runGitAsync(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature'])).trim();
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
    const comment = gitea.addComment('acme/widgets', 7, 'alice', `@${BOT} bump v3 to 301`);
    const payload: JobPayload = {
      version: 1,
      jobId: randomUUID(),
      botType: 'worker',
      prompt: 'bump v3 to 301',
      enqueuedAt: new Date().toISOString(),
      comment: {
        platform: 'gitea',
        repoFullName: 'acme/widgets',
        prNumber: 7,
        prBranch: 'feature',
        baseBranch: 'main',
        headSha: scenario.headSha,
        prTitle: 'Tune the service constants',
        commentId: String(comment.id),
        commentType: 'issue_comment',
        authorUsername: 'alice',
        body: `@${BOT} bump v3 to 301`,
        cloneUrl: gitea.gitUrl('acme/widgets'),
        deliveryId: 'delivery-gitea-worker',
        eventType: 'comment',
      },
    };
    result = await runCli(
      ['run-job'],
      {
        GITEA_TOKEN,
        GITEA_URL: gitea.url,
        WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
        HOME: root,
        AGENT_PROVIDER: 'anthropic',
        AGENT_MODEL: 'test-model',
        ANTHROPIC_API_KEY: LLM_KEY,
        ANTHROPIC_BASE_URL: llm.url,
        STORE_URL: redis.url,
        WORKER_BOT_USERNAME: BOT,
        REVIEWBOT_JOB_PAYLOAD: JSON.stringify(payload),
        LOG_LEVEL: 'debug',
      },
      120_000,
    );
  }, 180_000);

  afterAll(async () => {
    await redis?.stop();
    await llm?.close();
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('pushes the commit as the bot with the token and replies with its SHA', async () => {
    expect(result.stderr).not.toMatch(/"level":50/);
    expect(result.code).toBe(0);
    const after = (await runGitAsync(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature'])).trim();
    expect(after).not.toBe(before);
    expect((await runGitAsync(scenario.bareRepoPath, ['rev-parse', `${after}^`])).trim()).toBe(before);
    expect(await runGitAsync(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 301;',
    );
    const pushes = gitea.gitRequests.filter((r) => r.authorized && r.service === 'git-receive-pack');
    expect(pushes.length).toBeGreaterThan(0);
    expect(new Set(pushes.map((r) => r.username))).toEqual(new Set([BOT]));
    const reply = gitea.comments.find((c) => c.author === BOT && c.body.includes('Bumped v3 to 301'));
    expect(reply?.body).toContain(after.slice(0, 7));
    expect(gitea.violations).toEqual([]);
  });

  it('keeps the token out of the model requests, the commit, the replies and the logs', async () => {
    const pushed = await runGitAsync(scenario.bareRepoPath, ['log', '-p', '--all', '--format=%an %ae %s %b']);
    const places = [
      JSON.stringify(llm.requests.map((r) => r.body)),
      JSON.stringify(gitea.requests.map((r) => r.body)),
      pushed,
      result.stderr,
      result.stdout,
    ];
    for (const text of places) expect(text).not.toContain(GITEA_TOKEN);
  });
});
