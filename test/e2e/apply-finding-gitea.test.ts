/**
 * `@<worker> apply` on Gitea, through `reviewbot serve` and the fake Gitea: a reply in the code
 * conversation the bot started with a finding (Gitea delivers it as a plain `issue_comment`; the bot
 * places it in its conversation), whose suggestion is in the "Suggested replacement for these 2
 * lines:" form, makes the product replace the lines itself (CRLF kept, no final newline kept, no
 * model call), push one commit, reply in the conversation with its SHA and resolve it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGiteaWebhook } from '../support/fake-gitea/send-webhook.js';
import { pullRequestCommentHook, type GiteaHookContext } from '../support/fake-gitea/webhook-payloads.js';
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

const TOKEN = 'gitea-applyE2eTokenThatMustNeverLeak01';
const SECRET = 'gitea-apply-secret-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot-gitea';

let root: string;
let repo: ApplyRepo;
let gitea: FakeGitea;
let llm: FakeLlm;
let server: ServeProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-gitea-'));
  repo = createApplyRepo(root, REPO);
  gitea = await startFakeGitea({ token: TOKEN, username: BOT, resolveEndpoint: true });
  gitea.addPullRequest({
    repo: REPO,
    index: 7,
    bareRepoPath: repo.bare,
    headBranch: 'feature',
    baseBranch: 'main',
    title: 'Apply',
  });
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  server = await startServe({
    GITEA_TOKEN: TOKEN,
    GITEA_URL: gitea.url,
    GITEA_WEBHOOK_SECRET: SECRET,
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
  await gitea?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@worker apply in a finding conversation (Gitea)', () => {
  it('applies the suggestion byte for byte, replies with the SHA and resolves the conversation', async () => {
    const finding = gitea.addCodeComment({
      repo: REPO,
      index: 7,
      author: BOT,
      body: applyFindingBody(renderPlainSuggestion),
      path: APPLY_CASE.path,
      line: APPLY_CASE.line,
    });
    const before = await repo.head();
    const body = `@${APPLY_WORKER} apply`;
    const mention = gitea.addCodeComment({
      repo: REPO,
      index: 7,
      author: 'alice',
      body,
      path: '',
      line: 0,
      inReplyTo: finding.id,
    });
    const ctx: GiteaHookContext = { baseUrl: gitea.url, owner: 'acme', repo: 'widgets', sender: 'alice' };
    const hook = pullRequestCommentHook(
      ctx,
      {
        number: 7,
        title: 'Apply',
        headBranch: 'feature',
        headSha: before,
        baseBranch: 'main',
        baseSha: (await repo.log('%H', 'main')).trim(),
        author: 'alice',
      },
      { id: mention.id, body },
    );
    const res = await sendGiteaWebhook(`${server.url}/webhooks/gitea`, hook.names, hook.payload, {
      secret: SECRET,
    });
    expect(res.json).toEqual({ status: 'accepted' });
    const reply = await waitFor(
      () =>
        gitea.codeComments.find((c) => c.path === APPLY_CASE.path && c.author === BOT && c.id > mention.id),
      30_000,
      'apply reply',
    );
    const after = await repo.head();
    expect(after).not.toBe(before);
    expect((await repo.show(APPLY_CASE.path)).toString('binary')).toBe(APPLY_CASE.applied);
    expect(await repo.changed(before, after)).toBe(`${APPLY_CASE.path}\n`);
    expect(await repo.log('%B', after)).toBe('Add spaces around the operator.\n\nRequested by @alice\n\n');
    expect(reply.body).toBe(appliedText(after));
    expect(gitea.codeComments.filter((c) => c.author === BOT).length).toBe(2);
    expect(gitea.codeComments.find((c) => c.id === finding.id)?.resolver).toBe(BOT);
    expect(llm.requests).toEqual([]);
    expect(gitea.violations).toEqual([]);
  });
});
