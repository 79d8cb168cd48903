/**
 * End to end on Azure DevOps: `reviewbot serve` (the built CLI) with the azure-devops platform
 * receives service-hook deliveries the way a Web Hooks subscription with Basic authentication sends
 * them, acknowledges with the §18 pull request status, starts the REVIEWER from a mention picked
 * from the list (`@<GUID>`), lets the WORKER commit, push (PAT in a header) and reply in the
 * mention's thread, ignores a redelivered event `id`, refuses bad Basic credentials (401), and runs
 * the lifecycle triggers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commentEvent,
  pullRequestEvent,
  sendServiceHook,
  startFakeAzureDevOps,
  type FakeAzureDevOps,
} from '../support/fake-azure-devops/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const TOKEN = 'ado-e2e-serve-pat-that-must-never-leak';
const HOOK_USER = 'reviewbot-hooks';
const HOOK_SECRET = 'ado-hook-secret-e2e-0123456789';
const PROJECT = 'Fabrikam';
const REPO = 'widgets';
const BOT = 'reviewbot@example.com';
const WORKER = 'workbot@example.com';
const ALICE = { id: '11111111-2222-4333-8444-555555555555', uniqueName: 'alice@example.com' };

async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('git', ['--git-dir', bare, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve on Azure DevOps', () => {
  let root: string;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let server: ServeProcess;
  const hookUrl = () => `${server.url}/webhooks/azure-devops`;
  const send = (payload: unknown, auth = { user: HOOK_USER, password: HOOK_SECRET }) =>
    sendServiceHook(hookUrl(), payload, auth);
  /** A thread by Alice on #`id` and its comment event. */
  async function mention(content: string, id = 7) {
    const thread = ado.addThread(PROJECT, REPO, id, ALICE.uniqueName, ALICE.id, content);
    const pr = await ado.pullRequestJson(PROJECT, REPO, id);
    return { thread, event: commentEvent(pr, thread.id, { id: 1, content, author: ALICE }) };
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-ado-serve-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ token: TOKEN, botUniqueName: BOT });
    ado.addPullRequest({
      project: PROJECT,
      repo: REPO,
      id: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      AZURE_DEVOPS_TOKEN: TOKEN,
      AZURE_DEVOPS_URL: ado.collectionUrl,
      AZURE_DEVOPS_WEBHOOK_USER: HOOK_USER,
      AZURE_DEVOPS_WEBHOOK_SECRET: HOOK_SECRET,
      REVIEWER_BOT_USERNAME: BOT,
      WORKER_BOT_USERNAME: WORKER,
      REVIEWER_TRIGGERS: 'pr_opened,pr_push',
      ALLOWED_USERS: ALICE.uniqueName,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await ado?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a mention by identity id (@<GUID>, any case) starts the REVIEWER: status pending → succeeded, threads, summary', async () => {
    llm.setScript(reviewScript(scenario));
    const { event } = await mention(`@<${ado.botId.toUpperCase()}> please review`);
    expect(await send(event)).toMatchObject({ status: 200, json: { status: 'accepted' } });
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
    expect(ado.statuses(PROJECT, REPO, 7).map((s) => [s.state, s.context.genre, s.context.name])).toEqual([
      ['pending', 'reviewbot', 'review'],
      ['succeeded', 'reviewbot', 'review'],
    ]);
    expect(ado.violations).toEqual([]);

    // The same event again (a retry keeps its id): answered, nothing started.
    expect(await send(event)).toMatchObject({
      status: 200,
      json: { status: 'ignored', reason: 'duplicate delivery' },
    });
  });

  it('refuses a wrong password or user (401) before parsing, and ignores events it does not handle', async () => {
    const pr = await ado.pullRequestJson(PROJECT, REPO, 7);
    const created = pullRequestEvent('git.pullrequest.created', pr);
    expect((await send(created, { user: HOOK_USER, password: 'wrong' })).status).toBe(401);
    expect((await send(created, { user: 'someone', password: HOOK_SECRET })).status).toBe(401);
    const res = await fetch(hookUrl(), { method: 'POST', body: '{not json' });
    expect(res.status).toBe(401);
    const other = await send({ ...created, eventType: 'git.push' });
    expect(other).toMatchObject({ status: 200, json: { status: 'ignored' } });
    // The bot's own comment never starts a job (bot loop); a user outside allowed_users neither.
    const own = commentEvent(pr, 99, {
      id: 2,
      content: `@${BOT} again`,
      author: { id: ado.botId, uniqueName: BOT },
    });
    expect((await send(own)).json).toEqual({ status: 'ignored', reason: 'comment by a bot' });
    const mallory = commentEvent(pr, 99, {
      id: 3,
      content: `@${BOT} review`,
      author: { id: '22222222-2222-4333-8444-555555555555', uniqueName: 'mallory@example.com' },
    });
    expect((await send(mallory)).json).toEqual({
      status: 'ignored',
      reason: 'user mallory@example.com is not allowed',
    });
  });

  it('the WORKER edits, commits, pushes to the head branch (PAT in a header) and replies in the thread', async () => {
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
    const { thread, event } = await mention(`@${WORKER} bump v3 to 301`);
    expect((await send(event)).json).toEqual({ status: 'accepted' });
    const reply = await waitFor(
      () => thread.comments.find((c) => c.content.includes('Bumped v3 to 301')),
      60_000,
      'worker reply in the thread',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(reply.author).toBe(BOT);
    expect(reply.parentCommentId).toBe(1);
    expect(reply.content).toContain(after.slice(0, 7));
    expect(ado.gitRequests.some((r) => r.service === 'git-receive-pack' && r.preemptive)).toBe(true);
    expect(ado.violations).toEqual([]);
  });

  it('git.pullrequest.updated after the push reviews the new head; created on a reviewed head posts nothing', async () => {
    llm.setScript([summaryReply('Looked at the push: fine.')]);
    const pr = await ado.pullRequestJson(PROJECT, REPO, 7);
    expect((await send(pullRequestEvent('git.pullrequest.updated', pr))).json).toEqual({
      status: 'accepted',
    });
    await waitFor(
      () => ado.threads(PROJECT, REPO, 7).find((t) => t.comments[0]?.content.includes('Looked at the push')),
      60_000,
      'review of the push',
    );
    const calls = llm.requests.length;
    const threads = ado.threads(PROJECT, REPO, 7).length;
    expect((await send(pullRequestEvent('git.pullrequest.created', pr))).json).toEqual({
      status: 'accepted',
    });
    await new Promise((r) => setTimeout(r, 3000));
    expect(llm.requests.length).toBe(calls);
    expect(ado.threads(PROJECT, REPO, 7).length).toBe(threads);
    expect(ado.violations).toEqual([]);
  });
});
