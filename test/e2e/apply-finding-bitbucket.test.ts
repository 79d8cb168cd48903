/**
 * `@<worker> apply` on Bitbucket Cloud, through `reviewbot serve` and the fake Bitbucket Cloud: a
 * reply to the inline comment the bot started with a finding (its marker in the link-reference
 * form, its suggestion in the "Suggested replacement for these 2 lines:" form) makes the product
 * replace the lines itself (CRLF kept, no final newline kept, no model call), push one commit,
 * reply in the thread with its SHA and resolve the comment thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { toWire } from '../../src/platforms/wire-markers.js';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { commentHook, sendBitbucketWebhook } from '../support/fake-bitbucket-cloud/webhooks.js';
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

const TOKEN = 'bb-applyE2eTokenThatMustNeverLeak01';
const SECRET = 'bb-apply-secret-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot-bb';
const BOT_ID = '557058:bot-0001';

let root: string;
let repo: ApplyRepo;
let bb: FakeBitbucketCloud;
let llm: FakeLlm;
let server: ServeProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-bb-'));
  repo = createApplyRepo(root, REPO);
  bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: BOT, accountId: BOT_ID });
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
    BITBUCKET_TOKEN: TOKEN,
    BITBUCKET_API_URL: bb.apiUrl,
    BITBUCKET_WEBHOOK_SECRET: SECRET,
    REVIEWER_BOT_USERNAME: 'review-bot',
    WORKER_BOT_USERNAME: APPLY_WORKER,
    // allowed_users on Bitbucket Cloud lists account ids (the fake's alice is 557058:alice).
    ALLOWED_USERS: '557058:alice',
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

describe('@worker apply in a finding thread (Bitbucket Cloud)', () => {
  it('applies the suggestion byte for byte, replies with the SHA and resolves the thread', async () => {
    const inline = { path: APPLY_CASE.path, to: APPLY_CASE.line, start_to: APPLY_CASE.startLine };
    const finding = bb.addComment(REPO, 7, {
      raw: toWire(applyFindingBody(renderPlainSuggestion)),
      author: BOT,
      inline,
    });
    const before = await repo.head();
    const raw = `@${APPLY_WORKER} apply`;
    const mention = bb.addComment(REPO, 7, { raw, author: 'alice', inline, parentId: finding.id });
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
      { id: mention.id, raw, author: 'alice', inline, parentId: finding.id },
    );
    const res = await sendBitbucketWebhook(
      `${server.url}/webhooks/bitbucket`,
      'pullrequest:comment_created',
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
    expect(await repo.log('%B', after)).toBe(
      // Bitbucket Cloud's login is an account id: the commit names the person too.
      'Add spaces around the operator.\n\nRequested by alice (@{557058:alice})\n\n',
    );
    expect(reply.raw).toBe(appliedText(after));
    expect([finding.id, mention.id]).toContain(reply.parentId);
    expect(comments().find((c) => c.id === finding.id)?.resolved).toBe(true);
    expect(llm.requests).toEqual([]);
    expect(bb.violations).toEqual([]);
  });
});
