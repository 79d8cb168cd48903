/**
 * Cluster mode end to end on Azure DevOps: a service hook (Basic auth) reaches `reviewbot serve` in
 * cluster mode (real Redis, the fake Kubernetes API running each Job's `reviewbot run-job` as a
 * local process with the Job's env and the `reviewbot-secrets` Secret); the Job's pod reviews the
 * pull request on the fake Azure DevOps: the `reviewbot/review` status pending → succeeded, one
 * thread per finding and the summary; the WORKER's Job commits, pushes and replies in the thread.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import { startFakeKubernetes, type FakeKubernetes } from '../support/fake-k8s/index.js';
import type { FakeLlm } from '../support/fake-llm/index.js';
import type { DiffScenario } from '../support/git-fixtures.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  bareGit,
  BOT,
  createAzureDevOpsFixture,
  PROJECT,
  REPO,
  WORKER,
  type AzureDevOpsFixture,
} from './azure-devops-fixture.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';
import { clusterServeEnv, JOB_SECRET, jobIdOf, prOf } from './cluster-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'ado-e2e-cluster-pat-that-must-never-leak';

describe('reviewbot serve in cluster mode on Azure DevOps', () => {
  let fx: AzureDevOpsFixture;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let redis: RedisServer;
  let k8s: FakeKubernetes;
  let store: Redis;
  let server: ServeProcess;

  /** A thread by Alice on #7 whose comment event is delivered; returns the thread. */
  async function mention(content: string) {
    const { thread, event } = await fx.mention(content);
    const res = await fx.deliver(server, event);
    expect(res.json).toEqual({ status: 'accepted' });
    return thread;
  }

  beforeAll(async () => {
    // A Server-style collection URL (`https://<server>/<collection>`): routes resolve under its path.
    fx = await createAzureDevOpsFixture({
      prefix: 'reviewbot-ado-cluster-',
      token: TOKEN,
      fake: { botUniqueName: BOT, collection: '/tfs/DefaultCollection' },
    });
    ({ scenario, ado, llm } = fx);
    redis = await startRedis();
    store = new Redis(redis.url, { maxRetriesPerRequest: null });
    store.on('error', () => undefined);
    k8s = await startFakeKubernetes({
      secrets: { [JOB_SECRET]: { AZURE_DEVOPS_TOKEN: TOKEN, ANTHROPIC_API_KEY: LLM_KEY } },
      killGraceMs: 500,
    });
    server = await startServe({
      ...fx.serveEnv,
      ...clusterServeEnv({ root: fx.root, llmUrl: llm.url, k8s, redisUrl: redis.url }),
    });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    store?.disconnect();
    await k8s?.close();
    await redis?.stop();
    await fx?.close();
  });

  it('a mention of the REVIEWER becomes a Job whose pod posts the review on Azure DevOps', async () => {
    const right = reviewLines(scenario).right;
    const finding = { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' };
    llm.setScript([{ text: JSON.stringify({ summary: 'One point from the pod.', comments: [finding] }) }]);
    await mention(`@${BOT} please review`);
    const summary = await waitFor(
      () =>
        ado.threads(PROJECT, REPO, 7).find((t) => t.comments[0]?.content.includes('One point from the pod.')),
      40_000,
      'the summary',
    );
    expect(summary.comments[0]?.author).toBe(BOT);
    const inline = ado.threads(PROJECT, REPO, 7).filter((t) => t.threadContext);
    expect(inline.map((t) => t.threadContext?.filePath)).toEqual([`/${right.path}`]);
    const jobs = k8s.jobs.filter((job) => prOf(job) === 7);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'azure-devops',
      'reviewbot/repo': 'fabrikam-widgets',
      'reviewbot/pr-number': '7',
    });
    await waitFor(() => k8s.runs.length === 1 && k8s.runs[0]?.endedAt, 10_000, 'the pod exit');
    expect(k8s.runs[0]?.exitCode).toBe(0);
    const done = JSON.parse((await store.get(`reviewbot:done:${jobIdOf(jobs[0]!)}`)) ?? '{}') as object;
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(ado.statuses(PROJECT, REPO, 7).map((s) => s.state)).toEqual(['pending', 'succeeded']);
    // The PAT reached the pod only through the Secret.
    const container = jobs[0]?.spec?.template.spec?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ AZURE_DEVOPS_URL: ado.collectionUrl, REVIEWER_BOT_USERNAME: BOT });
    expect(JSON.stringify(k8s.jobs)).not.toContain(TOKEN);
    expect(k8s.runs[0]?.env.AZURE_DEVOPS_TOKEN).toBe(TOKEN);
    expect(k8s.rejections).toEqual([]);
    expect(ado.violations).toEqual([]);
  }, 60_000);

  it("the WORKER's Job commits, pushes to the head branch and replies in the thread", async () => {
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
    const thread = await mention(`@${WORKER} bump v3 to 301`);
    const reply = await waitFor(
      () => thread.comments.find((c) => c.content.includes('Bumped v3 to 301')),
      40_000,
      'the worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);
    expect(reply.content).toContain(after.slice(0, 7));
    expect(ado.violations).toEqual([]);
  }, 60_000);
});
