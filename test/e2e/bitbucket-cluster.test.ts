/**
 * Cluster mode end to end on Bitbucket Cloud: a signed `pullrequest:comment_created` webhook reaches
 * `reviewbot serve` in cluster mode (real Redis, the fake Kubernetes API running each Job's
 * `reviewbot run-job` as a local process with the Job's env and the `reviewbot-secrets` Secret);
 * the Job's pod reviews the pull request on the fake Bitbucket Cloud (every request checked against
 * Atlassian's OpenAPI description): the finding as an inline comment, the summary, the `reviewbot`
 * build status INPROGRESS → SUCCESSFUL, and the token only in the Secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { commentHook, sendBitbucketWebhook } from '../support/fake-bitbucket-cloud/webhooks.js';
import { startFakeKubernetes, type FakeKubernetes } from '../support/fake-k8s/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';
import { clusterServeEnv, JOB_SECRET, jobIdOf, prOf } from './cluster-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'bb-e2e-cluster-token-that-must-never-leak';
const HOOK_SECRET = 'bb-hook-secret-cluster-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot-bb';
const REVIEWER = 'rb-reviewer';

describe('reviewbot serve in cluster mode on Bitbucket Cloud', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let llm: FakeLlm;
  let redis: RedisServer;
  let k8s: FakeKubernetes;
  let store: Redis;
  let server: ServeProcess;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-cluster-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: BOT });
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
      secrets: { [JOB_SECRET]: { BITBUCKET_TOKEN: TOKEN, ANTHROPIC_API_KEY: LLM_KEY } },
      killGraceMs: 500,
    });
    server = await startServe({
      BITBUCKET_TOKEN: TOKEN,
      BITBUCKET_API_URL: bb.apiUrl,
      BITBUCKET_WEBHOOK_SECRET: HOOK_SECRET,
      REVIEWER_BOT_USERNAME: REVIEWER,
      ALLOWED_USERS: '557058:alice',
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

  it('a mention of the REVIEWER becomes a Job whose pod posts the review on Bitbucket', async () => {
    const right = reviewLines(scenario).right;
    const finding = { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' };
    llm.setScript([{ text: JSON.stringify({ summary: 'One point from the pod.', comments: [finding] }) }]);
    const stored = bb.addComment(REPO, 7, { raw: `@${REVIEWER} please review`, author: 'alice' });
    const hook = commentHook(
      {
        repo: REPO,
        id: 7,
        title: 'Tune the service constants',
        headBranch: scenario.head,
        headSha: scenario.headSha,
        baseBranch: scenario.base,
        baseSha: scenario.baseSha,
      },
      { id: stored.id, raw: stored.raw, author: 'alice' },
    );
    const res = await sendBitbucketWebhook(
      `${server.url}/webhooks/bitbucket`,
      'pullrequest:comment_created',
      hook,
      { secret: HOOK_SECRET },
    );
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });

    const summary = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.raw.includes('One point from the pod.')),
      40_000,
      'the summary',
    );
    expect(summary.author).toBe(BOT);
    expect(summary.inline).toBeUndefined();
    const inline = bb.comments(REPO, 7).filter((c) => c.inline);
    expect(inline.map((c) => c.inline)).toEqual([{ path: right.path, to: right.line }]);
    expect(inline[0]?.raw).toContain('Name this constant.');
    expect(inline[0]?.author).toBe(BOT);

    // One Job for the pull request, built for the bitbucket platform; its pod ran to success and
    // published its completion in Redis.
    const jobs = k8s.jobs.filter((job) => prOf(job) === 7);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'bitbucket',
      'reviewbot/repo': 'acme-widgets',
      'reviewbot/pr-number': '7',
    });
    await waitFor(() => k8s.runs.length === 1 && k8s.runs[0]?.endedAt, 10_000, 'the pod exit');
    expect(k8s.runs[0]?.exitCode).toBe(0);
    const done = JSON.parse((await store.get(`reviewbot:done:${jobIdOf(jobs[0]!)}`)) ?? '{}') as object;
    expect(done).toMatchObject({ status: 'succeeded' });
    // Progress (§18) from the pod: INPROGRESS, then SUCCESSFUL, on the full head SHA.
    expect(bb.statuses.map((s) => [s.commit, s.key, s.state])).toEqual([
      [scenario.headSha, 'reviewbot', 'INPROGRESS'],
      [scenario.headSha, 'reviewbot', 'SUCCESSFUL'],
    ]);
    // The API URL was copied into the Job; the token reached the pod only through the Secret.
    const container = jobs[0]?.spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ BITBUCKET_API_URL: bb.apiUrl, REVIEWER_BOT_USERNAME: REVIEWER });
    expect(JSON.stringify(k8s.jobs)).not.toContain(TOKEN);
    expect(k8s.runs[0]?.env.BITBUCKET_TOKEN).toBe(TOKEN);
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN);
    expect(k8s.rejections).toEqual([]);
    expect(bb.violations).toEqual([]);
  }, 60_000);
});
