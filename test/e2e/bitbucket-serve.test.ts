/**
 * End to end on Bitbucket Cloud: `reviewbot serve` (the built CLI) with the bitbucket platform
 * receives webhooks delivered the way Bitbucket sends them (`X-Hub-Signature: sha256=`,
 * `X-Event-Key`, `X-Request-UUID`, 12-character hashes), acknowledges with the §18 build status,
 * posts the REVIEWER's inline comments and summary on the fake Bitbucket Cloud (OpenAPI-checked),
 * and answers a redelivery and a forged signature without doing anything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import {
  commentHook,
  pullRequestHook,
  sendBitbucketWebhook,
  type HookPullRequest,
} from '../support/fake-bitbucket-cloud/webhooks.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'bb-e2e-serve-token-that-must-never-leak';
const SECRET = 'bb-hook-secret-e2e-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot-bb';
const REVIEWER = 'rb-reviewer';

describe('reviewbot serve on Bitbucket Cloud', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let llm: FakeLlm;
  let server: ServeProcess;
  let pr: HookPullRequest;
  const send = (
    eventKey: string,
    payload: unknown,
    options: { deliveryId?: string; headers?: Record<string, string> } = {},
  ) =>
    sendBitbucketWebhook(`${server.url}/webhooks/bitbucket`, eventKey, payload, {
      secret: SECRET,
      ...options,
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-serve-'));
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
      BITBUCKET_TOKEN: TOKEN,
      BITBUCKET_API_URL: bb.apiUrl,
      BITBUCKET_WEBHOOK_SECRET: SECRET,
      REVIEWER_BOT_USERNAME: REVIEWER,
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

  it('a signed mention of the REVIEWER: build status INPROGRESS, inline comments, summary, SUCCESSFUL', async () => {
    llm.setScript(reviewScript(scenario));
    const stored = bb.addComment(REPO, 7, { raw: `@${REVIEWER} please review`, author: 'alice' });
    const deliveryId = '{0e4b1c2d-0000-4000-8000-000000000001}';
    const res = await send(
      'pullrequest:comment_created',
      commentHook(pr, { id: stored.id, raw: stored.raw, author: 'alice' }),
      {
        deliveryId,
      },
    );
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const summary = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.raw.includes('The constants change looks deliberate')),
      60_000,
      'summary',
    );
    expect(summary.author).toBe(BOT);
    expect(bb.comments(REPO, 7).filter((c) => c.inline)).toHaveLength(3);
    await waitFor(() => bb.statuses.length >= 2, 20_000, 'final build status');
    expect(bb.statuses.map((s) => [s.commit, s.key, s.state])).toEqual([
      [scenario.headSha, 'reviewbot', 'INPROGRESS'],
      [scenario.headSha, 'reviewbot', 'SUCCESSFUL'],
    ]);
    expect(bb.violations).toEqual([]);

    // The same delivery again (Bitbucket retries keep X-Request-UUID): answered, nothing started.
    const again = await send(
      'pullrequest:comment_created',
      commentHook(pr, { id: stored.id, raw: stored.raw, author: 'alice' }),
      {
        deliveryId,
      },
    );
    expect(again).toMatchObject({ status: 200, json: { status: 'ignored', reason: 'duplicate delivery' } });
  });

  it('refuses a forged signature (401) and ignores events it does not handle', async () => {
    const forged = await send('pullrequest:created', pullRequestHook(pr, 'alice'), {
      headers: { 'x-hub-signature': `sha256=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    const other = await send('repo:push', { repository: { full_name: REPO } });
    expect(other).toMatchObject({ status: 200, json: { status: 'ignored' } });
  });

  it('pullrequest:updated on the head already reviewed: accepted, no agent run, nothing posted', async () => {
    const calls = llm.requests.length;
    const comments = bb.comments(REPO, 7).length;
    const res = await send('pullrequest:updated', pullRequestHook(pr, 'alice'));
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    await new Promise((r) => setTimeout(r, 3000));
    expect(llm.requests.length).toBe(calls);
    expect(bb.comments(REPO, 7).length).toBe(comments);
    expect(bb.violations).toEqual([]);
  });
});
