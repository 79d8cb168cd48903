/**
 * The escape battery of CONTRACT §16 through a real `reviewbot run-job` process (the cluster Job
 * pod's entry point) with the server's secrets in its environment: the built CLI, a real Redis, the
 * fake GitHub (REST + git) and the fake Anthropic API. No secret in any encoding may reach a model
 * request, a comment, the pushed commits or a log line; nothing outside the workspace may change;
 * the legitimate part of the task must still be pushed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/agent/sandbox/index.js';
import type { JobPayload } from '../../src/jobs/types.js';
import { runGitAsync } from '../support/git-fixtures.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli, type CliResult } from '../support/run-cli.js';
import {
  batteryResults,
  batteryScript,
  findLeaks,
  forkBombIsBounded,
  survivorRunning,
  type BatteryTargets,
} from '../support/sandbox-battery.js';
import { createCliFixture, GITHUB_TOKEN, LLM_KEY, type CliFixture } from './cli-fixture.js';

const CANARY = 'canary-run-job-91d2e4-OUTSIDE-THE-WORKSPACE';
const WEBHOOK_SECRET = 'whsec-run-job-planted-6a0f2b';
const PLAIN_NAMED = 'plain-named-run-job-value-8e7d6c';
const status = await probeSandbox('auto');

let fx: CliFixture;
let llm: FakeLlm;
let redis: RedisServer;
let targets: BatteryTargets;
let result: CliResult;

beforeAll(async () => {
  fx = await createCliFixture();
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  redis = await startRedis();
  const canaryPath = path.join(fx.root, 'canary.txt');
  writeFileSync(canaryPath, CANARY);
  targets = {
    canaryPath,
    writeTargets: [path.join(fx.root, 'pwned.txt'), path.join(fx.baseDir, 'acme', 'pwned.txt')],
    hostUrl: llm.url,
    forkBomb: forkBombIsBounded(status),
  };
  llm.setScript(batteryScript(targets));
  const comment = await fx.github.addIssueComment({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    body: '@rb-worker add a double helper with a test',
    user: 'alice',
  });
  const payload: JobPayload = {
    version: 1,
    jobId: randomUUID(),
    botType: 'worker',
    prompt: 'add a double helper with a test',
    enqueuedAt: new Date().toISOString(),
    comment: {
      platform: 'github',
      repoFullName: 'acme/widgets',
      prNumber: 7,
      prBranch: 'feature',
      baseBranch: 'main',
      headSha: fx.scenario.headSha,
      prTitle: 'Tune the service constants',
      commentId: String(comment.id),
      commentType: 'issue_comment',
      authorUsername: 'alice',
      body: '@rb-worker add a double helper with a test',
      cloneUrl: fx.github.gitUrl('acme', 'widgets'),
      deliveryId: 'delivery-sandbox',
      eventType: 'comment',
    },
  };
  result = await runCli(
    ['run-job'],
    {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      CODEHOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
      REVIEWBOT_PLAIN_NAMED_VALUE: PLAIN_NAMED,
      WORKSPACE_BASE_DIR: fx.baseDir,
      HOME: fx.root,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-sonnet-5-5',
      AGENT_MAX_TURNS: '30',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      STORE_URL: redis.url,
      WORKER_BOT_USERNAME: 'rb-worker',
      REVIEWBOT_JOB_PAYLOAD: JSON.stringify(payload),
      LOG_LEVEL: 'debug',
    },
    120_000,
  );
}, 180_000);

afterAll(async () => {
  await redis?.stop();
  await llm?.close();
  await fx?.close();
});

const bareGit = async (...args: string[]) => (await runGitAsync(fx.scenario.bareRepoPath, args)).trim();

describe('WORKER escape battery through a run-job process', () => {
  it('the job succeeds and logs the sandbox it detected', () => {
    expect(result.code).toBe(0);
    const expected = status.kind === 'bwrap' ? /"msg":"tool sandbox: bubblewrap/ : /"msg":"no tool sandbox: /;
    expect(result.stderr).toMatch(expected);
  });

  it('no secret in any form reaches a model request, a comment, the pushed commits or a log line', async () => {
    const places = {
      'model requests': JSON.stringify(llm.requests.map((r) => r.body)),
      'GitHub requests': JSON.stringify(fx.github.requests.map((r) => r.body)),
      'pushed commits': await bareGit('log', '-p', '--all', '--format=%an %ae %s %b'),
      'stderr (logs)': result.stderr,
      stdout: result.stdout,
    };
    expect(findLeaks(places, [GITHUB_TOKEN, LLM_KEY, WEBHOOK_SECRET, PLAIN_NAMED, CANARY])).toEqual([]);
    expect(fx.github.violations).toEqual([]);
  });

  it('nothing outside the workspace changed and no process survived', () => {
    for (const target of targets.writeTargets) expect(existsSync(target), target).toBe(false);
    expect(readFileSync(targets.canaryPath, 'utf8')).toBe(CANARY);
    expect(existsSync(path.join(fx.root, '.gitconfig'))).toBe(false);
    expect(survivorRunning()).toBe(false);
  });

  it.runIf(status.kind === 'bwrap')(
    'the attempts failed inside the sandbox and the legitimate task was pushed',
    async () => {
      const results = batteryResults(llm.requests, targets);
      expect(results.get('canary plain')!.content).toMatch(/No such file/);
      expect(results.get('open fds')!.content.trim()).toBe('0 1 2 3');
      expect(results.get('network')!.content).toMatch(/BLOCKED/);
      expect(results.get('git config')!.content).toContain('user.name=evil-global');
      const head = await bareGit('rev-parse', 'refs/heads/feature');
      expect(head).not.toBe(fx.scenario.headSha);
      expect(await bareGit('show', `${head}:test/double.test.mjs`)).toContain('double(21)');
      expect(await bareGit('log', '-1', '--format=%an', head)).toBe('rb-worker');
      const testRun = llm.requests.filter((r) => r.status === 200).at(-1)!.toolResults[0]!;
      expect(testRun.content).toMatch(/# pass 1/);
    },
  );

  it.runIf(status.kind !== 'bwrap')(
    'without a sandbox every Bash call was refused and the reply says so',
    () => {
      for (const [label, r] of batteryResults(llm.requests, targets)) {
        expect(r.content, label).toMatch(/Bash is unavailable/);
      }
      expect(fx.github.issueComments.at(-1)!.body).toMatch(/\*\*Note:\*\* Bash is unavailable/);
    },
  );
});
