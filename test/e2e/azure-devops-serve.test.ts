/**
 * End to end on Azure DevOps: `reviewbot serve` (the built CLI) with the azure-devops platform
 * receives service-hook deliveries the way a Web Hooks subscription with Basic authentication sends
 * them, acknowledges with the §18 pull request status, starts the REVIEWER from a mention picked
 * from the list (`@<GUID>`), lets the WORKER commit, push (PAT in a header) and reply in the
 * mention's thread, ignores a redelivered event `id`, refuses bad Basic credentials (401), and runs
 * the lifecycle triggers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentEvent, pullRequestEvent, type FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import type { FakeLlm } from '../support/fake-llm/index.js';
import type { DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  bareGit,
  BOT,
  createAzureDevOpsFixture,
  HOOK_SECRET,
  HOOK_USER,
  PROJECT,
  REPO,
  WORKER,
  type AzureDevOpsFixture,
} from './azure-devops-fixture.js';
import { reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const TOKEN = 'ado-e2e-serve-pat-that-must-never-leak';

describe('reviewbot serve on Azure DevOps', () => {
  let fx: AzureDevOpsFixture;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let server: ServeProcess;
  const hookUrl = () => `${server.url}/webhooks/azure-devops`;
  const send = (payload: unknown, auth?: { user: string; password: string }) =>
    fx.deliver(server, payload, auth);
  /** A thread by Alice on #`id` and its comment event. */
  const mention = (content: string, id = 7) => fx.mention(content, id);

  beforeAll(async () => {
    fx = await createAzureDevOpsFixture({
      prefix: 'reviewbot-ado-serve-',
      token: TOKEN,
      fake: { botUniqueName: BOT },
    });
    ({ scenario, ado, llm } = fx);
    server = await startServe({
      ...fx.serveEnv,
      REVIEWER_TRIGGERS: 'pr_opened,pr_push',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      CLEANUP_INTERVAL_HOURS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await fx?.close();
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
