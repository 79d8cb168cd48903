/**
 * End to end on Gitea/Forgejo: `reviewbot serve` (the built CLI) with the gitea platform enabled
 * receives webhooks delivered the way Gitea and Forgejo send them (`X-Gitea-Signature`,
 * `X-Gitea-Event`/`-Type`, `X-Gitea-Delivery`; payloads built like `modules/structs`), puts `eyes`
 * on the mention, posts the REVIEWER's review with inline comments on the fake Gitea (which checks
 * every request against Gitea's swagger), lets the WORKER commit, push and reply, reviews on a
 * lifecycle trigger, answers a mention in a code conversation in that conversation, and answers a
 * redelivery and a forged signature without doing anything.
 * Bot names hold `.` and `_`, which Gitea usernames may.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGiteaWebhook, type SendGiteaWebhookOptions } from '../support/fake-gitea/send-webhook.js';
import {
  pullRequestCommentHook,
  pullRequestHook,
  reviewHook,
  type GiteaHook,
  type GiteaHookContext,
  type GiteaHookPullRequest,
} from '../support/fake-gitea/webhook-payloads.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, SCENARIO_PATHS, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const GITEA_TOKEN = 'gitea-e2e-serve-token-that-must-never-leak';
const HOOK_SECRET = 'gitea-hook-secret-e2e-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot.gitea';
const REVIEWER = 'rb.reviewer';
const WORKER = 'rb_worker';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve on Gitea/Forgejo', () => {
  let root: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let server: ServeProcess;
  let ctx: GiteaHookContext;

  /** The pull request `index` as a hook describes it now (its head SHA from the fake). */
  async function pr(index: number, title = 'Tune the service constants'): Promise<GiteaHookPullRequest> {
    return {
      number: index,
      title,
      headBranch: scenario.head,
      headSha: await gitea.headSha(REPO, index),
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
      author: 'alice',
    };
  }

  const send = (hook: GiteaHook, options: SendGiteaWebhookOptions = {}) =>
    sendGiteaWebhook(`${server.url}/webhooks/gitea`, hook.names, hook.payload, {
      secret: HOOK_SECRET,
      ...options,
    });

  /** Adds a comment by `author` on #7 and returns its hook. */
  async function commentHook(body: string, author = 'alice'): Promise<{ id: number; hook: GiteaHook }> {
    const stored = gitea.addComment(REPO, 7, author, body);
    return { id: stored.id, hook: pullRequestCommentHook({ ...ctx, sender: author }, await pr(7), stored) };
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-serve-'));
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
    server = await startServe({
      GITEA_TOKEN,
      GITEA_URL: gitea.url,
      GITEA_WEBHOOK_SECRET: HOOK_SECRET,
      REVIEWER_BOT_USERNAME: REVIEWER,
      WORKER_BOT_USERNAME: WORKER,
      REVIEWER_TRIGGERS: 'pr_opened,pr_push',
      ALLOWED_USERS: 'alice',
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
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a signed mention of the REVIEWER: eyes, then one review with inline comments', async () => {
    llm.setScript(reviewScript(scenario));
    const { id, hook } = await commentHook(`@${REVIEWER} please review`);
    const res = await send(hook);
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    await waitFor(() => gitea.reactions.find((r) => r.commentId === id), 20_000, 'eyes reaction');
    expect(gitea.reactions.filter((r) => r.commentId === id)).toEqual([
      expect.objectContaining({ content: 'eyes', user: BOT }),
    ]);
    const review = await waitFor(
      () => gitea.reviews.find((r) => r.body.includes('The constants change looks deliberate')),
      60_000,
      'review',
    );
    expect(review).toMatchObject({ author: BOT, commitId: scenario.headSha });
    const inline = gitea.codeComments.filter((c) => c.reviewId === review.id);
    expect(inline.length).toBeGreaterThanOrEqual(2);
    expect(inline.map((c) => c.path)).toEqual(
      expect.arrayContaining([SCENARIO_PATHS.modified, SCENARIO_PATHS.added]),
    );
    // Progress (CONTRACT §18): the head's `reviewbot` commit status went pending, then success
    // linking the posted review.
    const reviewUrl = `${gitea.url}/${REPO}/pulls/7#issuecomment-${review.id}`;
    await waitFor(() => gitea.statuses.find((s) => s.state === 'success'), 20_000, 'success status');
    expect(gitea.statuses).toEqual([
      expect.objectContaining({
        sha: scenario.headSha,
        context: 'reviewbot',
        state: 'pending',
        description: 'reviewbot is reviewing this pull request',
        targetUrl: `${gitea.url}/${REPO}/pulls/7`,
      }),
      expect.objectContaining({
        sha: scenario.headSha,
        context: 'reviewbot',
        state: 'success',
        description: expect.stringMatching(/^Reviewed: \d+ findings? · /),
        targetUrl: reviewUrl,
      }),
    ]);
    expect(gitea.violations).toEqual([]);
  });

  it('the WORKER edits, commits, pushes to the head branch and replies in the conversation', async () => {
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
    // As Forgejo sends it (X-Forgejo-* headers too) and without the `pull_request` object.
    const stored = gitea.addComment(REPO, 7, 'alice', `@${WORKER} bump v3 to 301`);
    const hook = pullRequestCommentHook(ctx, await pr(7), stored, { withPullRequest: false });
    expect((await send(hook, { forgejo: true })).json).toEqual({ status: 'accepted' });
    const reply = await waitFor(
      () => gitea.comments.find((c) => c.body.includes('Bumped v3 to 301')),
      60_000,
      'worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 301;',
    );
    expect(reply).toMatchObject({ author: BOT });
    expect(reply.body).toContain(after.slice(0, 7));
    // git authenticated as the bot's own login (CONTRACT §4), never with the token in a URL.
    expect(gitea.gitRequests.some((r) => r.username === BOT)).toBe(true);
    expect(gitea.violations).toEqual([]);
  });

  it("a mention in a submitted review's summary starts the REVIEWER (Pull Request Reviewed)", async () => {
    llm.setScript([summaryReply('Second look: nothing new.')]);
    const hook = reviewHook(ctx, await pr(7), `@${REVIEWER} take a second look`);
    expect((await send(hook)).json).toEqual({ status: 'accepted' });
    await waitFor(
      () =>
        gitea.reviews.find((r) => r.body.includes('Second look: nothing new.')) ??
        gitea.comments.find((c) => c.body.includes('Second look: nothing new.')),
      60_000,
      'review after a review mention',
    );
    expect(gitea.violations).toEqual([]);
  });

  it('a mention in a code conversation is answered in that conversation, not on the pull request', async () => {
    llm.setScript([summaryReply('Yes: v3 stays within the limit.')]);
    // Bob opens a conversation on a line; Alice replies there. Gitea delivers her reply as a plain
    // comment (issue_comment / pull_request_comment) naming no file or line.
    const opened = gitea.addCodeComment({
      repo: REPO,
      index: 7,
      author: 'bob',
      body: 'Is v3 too large?',
      path: SCENARIO_PATHS.modified,
      line: 3,
    });
    const asked = gitea.addCodeComment({
      repo: REPO,
      index: 7,
      author: 'alice',
      body: `@${REVIEWER} is this within the limit?`,
      path: SCENARIO_PATHS.modified,
      line: 3,
      inReplyTo: opened.id,
    });
    const hook = pullRequestCommentHook(ctx, await pr(7), { id: asked.id, body: asked.body });
    expect((await send(hook)).json).toEqual({ status: 'accepted' });
    const isAnswer = (c: { body: string }) => c.body.includes('Yes: v3 stays within the limit.');
    await waitFor(
      () => gitea.codeComments.find(isAnswer) ?? gitea.comments.find(isAnswer),
      50_000,
      'the answer',
    );
    expect(gitea.comments.filter(isAnswer)).toEqual([]);
    expect(gitea.codeComments.filter(isAnswer)).toEqual([
      expect.objectContaining({ author: BOT, path: SCENARIO_PATHS.modified, line: 3 }),
    ]);
    expect(gitea.violations).toEqual([]);
  });

  it('reviews an opened pull request without a mention (lifecycle trigger); a closed one starts nothing', async () => {
    gitea.addPullRequest({
      repo: REPO,
      index: 8,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Opened later',
    });
    llm.setScript([summaryReply('Automatic review on open.')]);
    const opened = await send(pullRequestHook(ctx, await pr(8, 'Opened later'), 'opened'));
    expect(opened.json).toEqual({ status: 'accepted' });
    await waitFor(
      () =>
        gitea.reviews.find((r) => r.index === 8 && r.body.includes('Automatic review on open.')) ??
        gitea.comments.find((c) => c.index === 8 && c.body.includes('Automatic review on open.')),
      60_000,
      'review on open',
    );
    const closed = await send(pullRequestHook(ctx, await pr(8, 'Opened later'), 'closed'));
    expect(closed.json).toEqual({ status: 'ignored', reason: 'pull_request action "closed" not handled' });
    expect(gitea.violations).toEqual([]);
  });

  it('answers a redelivered X-Gitea-Delivery as a duplicate and a forged signature with 401', async () => {
    const calls = llm.requests.length;
    const writes = gitea.writeRequests().length;
    const { hook } = await commentHook('no mention here', 'alice');
    const deliveryId = '5d0c1e2a-7b3f-4c8e-9a1d-2e3f4a5b6c7d';
    expect((await send(hook, { deliveryId })).json).toEqual({
      status: 'ignored',
      reason: 'no mention of the bot',
    });
    expect((await send(hook, { deliveryId })).json).toEqual({
      status: 'ignored',
      reason: 'duplicate delivery',
    });
    const mention = await commentHook(`@${REVIEWER} review`);
    const forged = await send(mention.hook, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const unsigned = await send(mention.hook, { headers: { 'x-gitea-signature': undefined } });
    expect(unsigned.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(llm.requests.length).toBe(calls);
    // Only the fake's own seeding wrote: the server made no write request.
    expect(gitea.writeRequests().length).toBe(writes);
  });

  it('a comment by the bot itself starts nothing', async () => {
    const { hook } = await commentHook(`@${REVIEWER} review again`, BOT);
    expect((await send(hook)).json).toEqual({ status: 'ignored', reason: 'comment by a bot' });
  });

  it('never wrote the token into a log line', () => {
    expect(server.stdout() + server.stderr()).not.toContain(GITEA_TOKEN);
  });
});
