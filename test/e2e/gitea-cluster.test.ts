/**
 * Cluster mode end to end on Gitea/Forgejo: a signed Gitea webhook reaches `reviewbot serve` in
 * cluster mode (real Redis, the fake Kubernetes API running each Job's `reviewbot run-job` as a
 * local process with the Job's env and the `reviewbot-secrets` Secret); the Job's pod reviews the
 * pull request on the fake Gitea (every request checked against Gitea's swagger): `eyes`, one
 * COMMENT review with its finding inline, the `reviewbot` commit status pending → success; the
 * WORKER's Job commits, pushes and replies in the conversation.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGiteaWebhook } from '../support/fake-gitea/send-webhook.js';
import {
  pullRequestCommentHook,
  type GiteaHookContext,
  type GiteaHookPullRequest,
} from '../support/fake-gitea/webhook-payloads.js';
import { startFakeKubernetes, type FakeKubernetes } from '../support/fake-k8s/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';
import { clusterServeEnv, JOB_SECRET, jobIdOf, prOf } from './cluster-fixture.js';
import { waitFor } from './serve-fixture.js';

const GITEA_TOKEN = 'gitea-e2e-cluster-token-that-must-never-leak';
const HOOK_SECRET = 'gitea-hook-secret-cluster-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot.gitea';
const REVIEWER = 'rb.reviewer';
const WORKER = 'rb_worker';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve in cluster mode on Gitea/Forgejo', () => {
  let root: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let redis: RedisServer;
  let k8s: FakeKubernetes;
  let store: Redis;
  let server: ServeProcess;
  let ctx: GiteaHookContext;

  async function pr(index: number): Promise<GiteaHookPullRequest> {
    return {
      number: index,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: await gitea.headSha(REPO, index),
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
      author: 'alice',
    };
  }

  /** Adds a comment by alice on #7 and delivers its signed webhook; returns the comment's id. */
  async function comment(body: string): Promise<number> {
    const stored = gitea.addComment(REPO, 7, 'alice', body);
    const hook = pullRequestCommentHook(ctx, await pr(7), stored);
    const res = await sendGiteaWebhook(`${server.url}/webhooks/gitea`, hook.names, hook.payload, {
      secret: HOOK_SECRET,
    });
    expect(res.json).toEqual({ status: 'accepted' });
    return stored.id;
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-cluster-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    gitea = await startFakeGitea({ token: GITEA_TOKEN, username: BOT });
    gitea.addPullRequest({
      repo: REPO,
      index: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    ctx = { baseUrl: gitea.url, owner: 'acme', repo: 'widgets', sender: 'alice' };
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    redis = await startRedis();
    store = new Redis(redis.url, { maxRetriesPerRequest: null });
    store.on('error', () => undefined);
    k8s = await startFakeKubernetes({
      secrets: { [JOB_SECRET]: { GITEA_TOKEN, ANTHROPIC_API_KEY: LLM_KEY } },
      killGraceMs: 500,
    });
    server = await startServe({
      GITEA_TOKEN,
      GITEA_URL: gitea.url,
      GITEA_WEBHOOK_SECRET: HOOK_SECRET,
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
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a mention of the REVIEWER becomes a Job whose pod posts the review on Gitea', async () => {
    const right = reviewLines(scenario).right;
    const finding = { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' };
    llm.setScript([{ text: JSON.stringify({ summary: 'One point from the pod.', comments: [finding] }) }]);
    const id = await comment(`@${REVIEWER} please review`);
    const review = await waitFor(
      () => gitea.reviews.find((r) => r.body.includes('One point from the pod.')),
      40_000,
      'the review',
    );
    expect(review).toMatchObject({ state: 'COMMENT', author: BOT, commitId: scenario.headSha });
    const inline = gitea.codeComments.filter((c) => c.reviewId === review.id);
    expect(inline.map((c) => [c.path, c.line])).toEqual([[right.path, right.line]]);
    expect(inline[0]?.body).toContain('Name this constant.');
    expect(gitea.reactions.filter((r) => r.commentId === id)).toEqual([
      expect.objectContaining({ content: 'eyes', user: BOT }),
    ]);
    // One Job for the pull request, built for the gitea platform; its pod ran to success and
    // published its completion in Redis.
    const jobs = k8s.jobs.filter((job) => prOf(job) === 7);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'gitea',
      'reviewbot/repo': 'acme-widgets',
      'reviewbot/pr-number': '7',
    });
    await waitFor(() => k8s.runs.length === 1 && k8s.runs[0]?.endedAt, 10_000, 'the pod exit');
    expect(k8s.runs[0]?.exitCode).toBe(0);
    const done = JSON.parse((await store.get(`reviewbot:done:${jobIdOf(jobs[0]!)}`)) ?? '{}') as object;
    expect(done).toMatchObject({ status: 'succeeded' });
    // Progress (§18) from the pod: pending, then success linking the review.
    expect(gitea.statuses.map((s) => [s.context, s.state, s.sha])).toEqual([
      ['reviewbot', 'pending', scenario.headSha],
      ['reviewbot', 'success', scenario.headSha],
    ]);
    expect(gitea.statuses[1]?.targetUrl).toBe(`${gitea.url}/${REPO}/pulls/7#issuecomment-${review.id}`);
    // The token reached the pod only through the Secret.
    const container = jobs[0]?.spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ GITEA_URL: gitea.url, REVIEWER_BOT_USERNAME: REVIEWER });
    expect(JSON.stringify(k8s.jobs)).not.toContain(GITEA_TOKEN);
    expect(k8s.runs[0]?.env.GITEA_TOKEN).toBe(GITEA_TOKEN);
    expect(k8s.rejections).toEqual([]);
    expect(gitea.violations).toEqual([]);
  }, 60_000);

  it("the WORKER's Job commits, pushes to the head branch and replies in the conversation", async () => {
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
    await comment(`@${WORKER} bump v3 to 301`);
    const reply = await waitFor(
      () => gitea.comments.find((c) => c.body.includes('Bumped v3 to 301')),
      40_000,
      'the worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 301;',
    );
    expect(reply).toMatchObject({ author: BOT });
    expect(reply.body).toContain(after.slice(0, 7));
    expect(k8s.jobs).toHaveLength(2);
    expect(server.stdout()).not.toContain(GITEA_TOKEN);
    expect(gitea.violations).toEqual([]);
  }, 60_000);
});
