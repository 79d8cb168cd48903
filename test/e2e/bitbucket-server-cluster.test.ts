/**
 * Cluster mode end to end on Bitbucket Data Center: a signed Data Center webhook reaches
 * `reviewbot serve` in cluster mode (real Redis, the fake Kubernetes API running each Job's
 * `reviewbot run-job` as a local process with the Job's env and the `reviewbot-secrets` Secret);
 * the Job's pod reviews the pull request on the fake Data Center (every request checked against
 * Atlassian's OpenAPI description): the `reviewbot` build status INPROGRESS → SUCCESSFUL, the
 * finding anchored and the summary; the WORKER's Job commits, pushes with the Bearer token and
 * replies in the mention's thread.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../support/fake-bitbucket-server/index.js';
import {
  commentHook,
  sendBitbucketServerWebhook,
  type HookPullRequest,
} from '../support/fake-bitbucket-server/webhooks.js';
import { startFakeKubernetes, type FakeKubernetes } from '../support/fake-k8s/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';
import { clusterServeEnv, JOB_SECRET, jobIdOf, prOf } from './cluster-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'bbs-e2e-cluster-token-that-must-never-leak';
const HOOK_SECRET = 'bbs-hook-secret-cluster-0123456789';
const REPO = 'ACME/widgets';
const BOT = 'reviewbot-dc';
const REVIEWER = 'rb-reviewer';
const WORKER = 'rb-worker';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve in cluster mode on Bitbucket Data Center', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  let llm: FakeLlm;
  let redis: RedisServer;
  let k8s: FakeKubernetes;
  let store: Redis;
  let server: ServeProcess;

  /** Adds a comment by alice on #7 and delivers its signed webhook; returns the comment's id. */
  async function comment(text: string): Promise<number> {
    const stored = bb.addComment(REPO, 7, { text, author: 'alice' });
    const pr: HookPullRequest = {
      repo: REPO,
      id: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]),
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
    };
    const res = await sendBitbucketServerWebhook(
      `${server.url}/webhooks/bitbucket-server`,
      'pr:comment:added',
      commentHook(pr, { id: stored.id, text, author: 'alice' }),
      { secret: HOOK_SECRET },
    );
    expect(res.json).toEqual({ status: 'accepted' });
    return stored.id;
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bbs-cluster-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketServer({ token: TOKEN, username: BOT });
    bb.addPullRequest({
      repo: REPO,
      id: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    redis = await startRedis();
    store = new Redis(redis.url, { maxRetriesPerRequest: null });
    store.on('error', () => undefined);
    k8s = await startFakeKubernetes({
      secrets: { [JOB_SECRET]: { BITBUCKET_SERVER_TOKEN: TOKEN, ANTHROPIC_API_KEY: LLM_KEY } },
      killGraceMs: 500,
    });
    server = await startServe({
      BITBUCKET_SERVER_TOKEN: TOKEN,
      BITBUCKET_SERVER_URL: bb.url,
      BITBUCKET_SERVER_WEBHOOK_SECRET: HOOK_SECRET,
      REVIEWER_BOT_USERNAME: REVIEWER,
      WORKER_BOT_USERNAME: WORKER,
      ALLOWED_USERS: 'alice',
      ...clusterServeEnv({ root, llmUrl: llm.url, k8s, redisUrl: redis.url }),
    });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    store?.disconnect();
    await k8s?.close();
    await redis?.stop();
    await llm?.close();
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a mention of the REVIEWER becomes a Job whose pod posts the review on Data Center', async () => {
    const right = reviewLines(scenario).right;
    const finding = { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' };
    llm.setScript([{ text: JSON.stringify({ summary: 'One point from the pod.', comments: [finding] }) }]);
    await comment(`@${REVIEWER} please review`);
    const summary = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.text.includes('One point from the pod.')),
      40_000,
      'the summary',
    );
    expect(summary.author).toBe(BOT);
    const inline = bb.comments(REPO, 7).filter((c) => c.anchor);
    expect(inline.map((c) => [c.anchor?.path, c.anchor?.line, c.anchor?.lineType])).toEqual([
      [right.path, right.line, 'ADDED'],
    ]);
    const jobs = k8s.jobs.filter((job) => prOf(job) === 7);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'bitbucket-server',
      'reviewbot/pr-number': '7',
    });
    await waitFor(() => k8s.runs.length === 1 && k8s.runs[0]?.endedAt, 10_000, 'the pod exit');
    expect(k8s.runs[0]?.exitCode).toBe(0);
    const done = JSON.parse((await store.get(`reviewbot:done:${jobIdOf(jobs[0]!)}`)) ?? '{}') as object;
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(bb.statuses.map((s) => [s.key, s.state, s.commit])).toEqual([
      ['reviewbot', 'INPROGRESS', scenario.headSha],
      ['reviewbot', 'SUCCESSFUL', scenario.headSha],
    ]);
    // The token reached the pod only through the Secret; the URL through the Job's env.
    const container = jobs[0]?.spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ BITBUCKET_SERVER_URL: bb.url, REVIEWER_BOT_USERNAME: REVIEWER });
    expect(JSON.stringify(k8s.jobs)).not.toContain(TOKEN);
    expect(k8s.runs[0]?.env.BITBUCKET_SERVER_TOKEN).toBe(TOKEN);
    expect(k8s.rejections).toEqual([]);
    expect(bb.violations).toEqual([]);
  }, 60_000);

  it("the WORKER's Job commits, pushes (Bearer) to the head branch and replies in the mention's thread", async () => {
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
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
    const id = await comment(`@${WORKER} bump v3 to 301`);
    const reply = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.text.includes('Bumped v3 to 301')),
      40_000,
      'the worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(reply).toMatchObject({ author: BOT, parentId: id });
    expect(reply.text).toContain(after.slice(0, 7));
    expect(k8s.jobs).toHaveLength(2);
    expect(bb.gitRequests.every((r) => r.authorized)).toBe(true);
    expect(server.stdout()).not.toContain(TOKEN);
    expect(bb.violations).toEqual([]);
  }, 60_000);
});
