/**
 * `@<worker> apply` on Bitbucket Data Center, through `reviewbot serve` and the fake Data Center: a
 * reply to the anchored comment the bot started with a finding (its marker in the link-reference
 * form, its suggestion in the "Suggested replacement for these 2 lines:" form, since Data Center's
 * own suggestion syntax needs an anchor the API cannot set) makes the product replace the lines
 * itself (CRLF kept, no final newline kept, no model call), push one commit (Bearer), reply in the
 * thread with its SHA and resolve the thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { toWire } from '../../src/platforms/wire-markers.js';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../support/fake-bitbucket-server/index.js';
import { commentHook, sendBitbucketServerWebhook } from '../support/fake-bitbucket-server/webhooks.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  APPLY_CASE,
  APPLY_WORKER,
  applyFindingBody,
  appliedText,
  createApplyRepo,
  type ApplyRepo,
} from './apply-fixture.js';
import { LLM_KEY } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'bbs-applyE2eTokenThatMustNeverLeak01';
const SECRET = 'bbs-apply-secret-0123456789';
const REPO = 'ACME/widgets';
const BOT = 'reviewbot-bbs';

let root: string;
let repo: ApplyRepo;
let bb: FakeBitbucketServer;
let llm: FakeLlm;
let server: ServeProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-bbs-'));
  repo = createApplyRepo(root, REPO);
  bb = await startFakeBitbucketServer({ token: TOKEN, username: BOT });
  bb.addPullRequest({
    repo: REPO,
    id: 7,
    bareRepoPath: repo.bare,
    headBranch: 'feature',
    baseBranch: 'main',
    title: 'Apply',
  });
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  server = await startServe({
    BITBUCKET_SERVER_TOKEN: TOKEN,
    BITBUCKET_SERVER_URL: bb.url,
    BITBUCKET_SERVER_WEBHOOK_SECRET: SECRET,
    REVIEWER_BOT_USERNAME: 'review-bot',
    WORKER_BOT_USERNAME: APPLY_WORKER,
    ALLOWED_USERS: 'alice',
    AGENT_PROVIDER: 'anthropic',
    AGENT_MODEL: 'claude-test',
    ANTHROPIC_API_KEY: LLM_KEY,
    ANTHROPIC_BASE_URL: llm.url,
    WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
    CLEANUP_INTERVAL_HOURS: '0',
    HOME: root,
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await llm?.close();
  await bb?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@worker apply in a finding thread (Bitbucket Data Center)', () => {
  it('applies the suggestion byte for byte, replies with the SHA and resolves the thread', async () => {
    const anchor = { path: APPLY_CASE.path, line: APPLY_CASE.line, lineType: 'ADDED', fileType: 'TO' };
    const finding = bb.addComment(REPO, 7, {
      text: toWire(applyFindingBody(renderPlainSuggestion)),
      author: BOT,
      anchor: { ...anchor, diffType: 'EFFECTIVE' },
    });
    const before = await repo.head();
    const text = `@${APPLY_WORKER} apply`;
    const mention = bb.addComment(REPO, 7, { text, author: 'alice', parentId: finding.id });
    const hook = commentHook(
      {
        repo: REPO,
        id: 7,
        title: 'Apply',
        headBranch: 'feature',
        headSha: before,
        baseBranch: 'main',
        baseSha: (await repo.log('%H', 'main')).trim(),
      },
      { id: mention.id, text, author: 'alice', parentId: finding.id, anchor },
    );
    const res = await sendBitbucketServerWebhook(
      `${server.url}/webhooks/bitbucket-server`,
      'pr:comment:added',
      hook,
      {
        secret: SECRET,
      },
    );
    expect(res.json).toEqual({ status: 'accepted' });
    const comments = () => bb.comments(REPO, 7);
    const reply = await waitFor(
      () => comments().find((c) => c.author === BOT && c.parentId !== undefined),
      30_000,
      'apply reply',
    );
    const after = await repo.head();
    expect(after).not.toBe(before);
    expect((await repo.show(APPLY_CASE.path)).toString('binary')).toBe(APPLY_CASE.applied);
    expect(await repo.changed(before, after)).toBe(`${APPLY_CASE.path}\n`);
    expect(await repo.log('%B', after)).toBe('Add spaces around the operator.\n\nRequested by @alice\n\n');
    expect(reply.text).toBe(appliedText(after));
    expect([finding.id, mention.id]).toContain(reply.parentId);
    expect(comments().find((c) => c.id === finding.id)?.threadResolved).toBe(true);
    expect(llm.requests).toEqual([]);
    expect(bb.violations).toEqual([]);
  });
});
