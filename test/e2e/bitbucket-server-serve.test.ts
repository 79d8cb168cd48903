/**
 * End to end on Bitbucket Data Center: `reviewbot serve` (the built CLI) with the bitbucket-server
 * platform receives webhooks delivered the way Data Center sends them (`X-Hub-Signature: sha256=`,
 * `X-Event-Key`, `X-Request-Id`), acknowledges with the §18 build status, posts the REVIEWER's
 * anchored comments and summary, lets the WORKER commit, push (Bearer) and reply in the mention's
 * thread, reviews a newly opened pull request (`pr:opened`), and answers a redelivery, a forged
 * signature and the bot's own comments without doing anything.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../support/fake-bitbucket-server/index.js';
import {
  commentHook,
  pullRequestHook,
  sendBitbucketServerWebhook,
  type HookPullRequest,
} from '../support/fake-bitbucket-server/webhooks.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const run = promisify(execFile);
const TOKEN = 'bbs-e2e-serve-token-that-must-never-leak';
const SECRET = 'bbs-hook-secret-e2e-0123456789';
const REPO = 'ACME/widgets';
const BOT = 'reviewbot-dc';
const REVIEWER = 'rb-reviewer';
const WORKER = 'rb-worker';

async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

describe('reviewbot serve on Bitbucket Data Center', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  let llm: FakeLlm;
  let server: ServeProcess;
  let pr: HookPullRequest;
  const send = (
    eventKey: string,
    payload: unknown,
    options: { deliveryId?: string; headers?: Record<string, string> } = {},
  ) =>
    sendBitbucketServerWebhook(`${server.url}/webhooks/bitbucket-server`, eventKey, payload, {
      secret: SECRET,
      ...options,
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bbs-serve-'));
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketServer({ token: TOKEN, username: BOT });
    for (const id of [7, 8]) {
      bb.addPullRequest({
        repo: REPO,
        id,
        bareRepoPath: scenario.bareRepoPath,
        headBranch: scenario.head,
        baseBranch: scenario.base,
        title: 'Tune the service constants',
      });
    }
    pr = {
      repo: REPO,
      id: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: scenario.headSha,
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
    };
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      BITBUCKET_SERVER_TOKEN: TOKEN,
      BITBUCKET_SERVER_URL: bb.url,
      BITBUCKET_SERVER_WEBHOOK_SECRET: SECRET,
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
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('a signed mention of the REVIEWER: build status INPROGRESS, anchored comments, summary, SUCCESSFUL; a redelivery starts nothing', async () => {
    llm.setScript(reviewScript(scenario));
    const stored = bb.addComment(REPO, 7, { text: `@${REVIEWER} please review`, author: 'alice' });
    const deliveryId = '6f1c0e5a-1b2c-4d3e-9f00-000000000001';
    const hook = commentHook(pr, { id: stored.id, text: stored.text, author: 'alice' });
    expect(await send('pr:comment:added', hook, { deliveryId })).toMatchObject({
      status: 200,
      json: { status: 'accepted' },
    });
    const summary = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.text.includes('The constants change looks deliberate')),
      60_000,
      'summary',
    );
    expect(summary.author).toBe(BOT);
    expect(bb.comments(REPO, 7).filter((c) => c.anchor)).toHaveLength(3);
    await waitFor(() => bb.statuses.length >= 2, 20_000, 'final build status');
    expect(bb.statuses.map((s) => [s.commit, s.key, s.state])).toEqual([
      [scenario.headSha, 'reviewbot', 'INPROGRESS'],
      [scenario.headSha, 'reviewbot', 'SUCCESSFUL'],
    ]);
    expect(bb.violations).toEqual([]);

    const again = await send('pr:comment:added', hook, { deliveryId });
    expect(again).toMatchObject({ status: 200, json: { status: 'ignored', reason: 'duplicate delivery' } });
  });

  it('refuses a forged signature (401); ignores the bot’s own comment and events it does not handle', async () => {
    const forged = await send('pr:opened', pullRequestHook(pr, 'alice'), {
      headers: { 'x-hub-signature': `sha256=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    const unsigned = await send('pr:opened', pullRequestHook(pr, 'alice'), {
      headers: { 'x-hub-signature': '' },
    });
    expect(unsigned.status).toBe(401);
    const other = await send('repo:refs_changed', { eventKey: 'repo:refs_changed' });
    expect(other).toMatchObject({ status: 200, json: { status: 'ignored' } });
    const own = await send(
      'pr:comment:added',
      commentHook(pr, { id: 99_999, text: `@${REVIEWER} loop?`, author: BOT }),
    );
    // The token's user (X-AUSERNAME) is the bot: its comments never start a job.
    expect(own).toMatchObject({ status: 200, json: { status: 'ignored', reason: 'comment by a bot' } });
  });

  it('the WORKER edits, commits, pushes to the head branch (Bearer) and replies in the mention’s thread', async () => {
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
    const stored = bb.addComment(REPO, 7, { text: `@${WORKER} bump v3 to 301`, author: 'alice' });
    const res = await send(
      'pr:comment:added',
      commentHook(pr, { id: stored.id, text: stored.text, author: 'alice' }),
    );
    expect(res.json).toEqual({ status: 'accepted' });
    const reply = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.text.includes('Bumped v3 to 301')),
      60_000,
      'worker reply',
    );
    expect(reply).toMatchObject({ author: BOT, parentId: stored.id });
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    expect(after).not.toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 301;',
    );
    expect(reply.text).toContain(after.slice(0, 7));
    expect(bb.gitRequests.some((r) => r.service === 'git-receive-pack' && r.authorized)).toBe(true);
    expect(bb.gitRequests.every((r) => r.authorized)).toBe(true);
    expect(bb.violations).toEqual([]);
  });

  it('pr:opened starts a REVIEWER run on a new pull request (lifecycle, no allowed_users check)', async () => {
    llm.setScript([summaryReply('Fresh pull request: nothing to add.')]);
    const head = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    const opened = { ...pr, id: 8, headSha: head };
    const res = await send('pr:opened', pullRequestHook(opened, 'mallory'));
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const summary = await waitFor(
      () => bb.comments(REPO, 8).find((c) => c.text.includes('Fresh pull request: nothing to add.')),
      60_000,
      'lifecycle summary',
    );
    expect(summary.author).toBe(BOT);
    expect(bb.violations).toEqual([]);
  });
});
