/**
 * `@<worker> apply` on Azure DevOps, through `reviewbot serve` and the fake Azure DevOps: a reply in
 * the file thread the bot started with a finding (its marker in the link-reference form, its
 * suggestion in the "Suggested replacement for these 2 lines:" form; Azure DevOps delivers the reply
 * as a comment event naming only its thread) makes the product replace the lines itself (CRLF kept,
 * no final newline kept, no model call), push one commit, reply in the thread with its SHA and mark
 * the thread fixed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadContextOf } from '../../src/platforms/azure-devops/submit-review.js';
import { renderPlainSuggestion } from '../../src/platforms/plain-suggestion.js';
import { toWire } from '../../src/platforms/wire-markers.js';
import {
  commentEvent,
  sendServiceHook,
  startFakeAzureDevOps,
  type FakeAzureDevOps,
} from '../support/fake-azure-devops/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  APPLY_CASE,
  applyFindingBody,
  appliedText,
  createApplyRepo,
  type ApplyRepo,
} from './apply-fixture.js';
import { ALICE, BOT, HOOK_SECRET, HOOK_USER, PROJECT, REPO, WORKER } from './azure-devops-fixture.js';
import { LLM_KEY } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'ado-applyE2eTokenThatMustNeverLeak01';

let root: string;
let repo: ApplyRepo;
let ado: FakeAzureDevOps;
let llm: FakeLlm;
let server: ServeProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-ado-'));
  repo = createApplyRepo(root, 'acme/widgets');
  ado = await startFakeAzureDevOps({ token: TOKEN, botUniqueName: BOT });
  ado.addPullRequest({
    project: PROJECT,
    repo: REPO,
    id: 7,
    bareRepoPath: repo.bare,
    headBranch: 'feature',
    baseBranch: 'main',
    title: 'Apply',
  });
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  server = await startServe({
    AZURE_DEVOPS_TOKEN: TOKEN,
    AZURE_DEVOPS_URL: ado.collectionUrl,
    AZURE_DEVOPS_WEBHOOK_USER: HOOK_USER,
    AZURE_DEVOPS_WEBHOOK_SECRET: HOOK_SECRET,
    REVIEWER_BOT_USERNAME: BOT,
    WORKER_BOT_USERNAME: WORKER,
    ALLOWED_USERS: ALICE.uniqueName,
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
  await ado?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@worker apply in a finding thread (Azure DevOps)', () => {
  it('applies the suggestion byte for byte, replies with the SHA and marks the thread fixed', async () => {
    const body = toWire(applyFindingBody(renderPlainSuggestion));
    const thread = ado.addThread(PROJECT, REPO, 7, BOT, ado.botId, body);
    // The bot's thread is anchored on lines 3-4 of the new file, as the platform posts it.
    thread.threadContext = threadContextOf({
      path: APPLY_CASE.path,
      startLine: APPLY_CASE.startLine,
      line: APPLY_CASE.line,
      side: 'RIGHT',
      body,
    });
    const content = `@${WORKER} apply`;
    thread.comments.push({
      id: 2,
      parentCommentId: 1,
      content,
      author: ALICE.uniqueName,
      authorId: ALICE.id,
      publishedDate: new Date().toISOString(),
    });
    const before = await repo.head();
    const pr = await ado.pullRequestJson(PROJECT, REPO, 7);
    const res = await sendServiceHook(
      `${server.url}/webhooks/azure-devops`,
      commentEvent(pr, thread.id, { id: 2, content, author: ALICE }),
      { user: HOOK_USER, password: HOOK_SECRET },
    );
    expect(res.json).toEqual({ status: 'accepted' });
    const reply = await waitFor(
      () => thread.comments.find((c) => c.id > 2 && c.authorId === ado.botId),
      30_000,
      'apply reply',
    );
    const after = await repo.head();
    expect(after).not.toBe(before);
    expect((await repo.show(APPLY_CASE.path)).toString('binary')).toBe(APPLY_CASE.applied);
    expect(await repo.changed(before, after)).toBe(`${APPLY_CASE.path}\n`);
    expect(await repo.log('%B', after)).toBe(
      `Add spaces around the operator.\n\nRequested by @${ALICE.uniqueName}\n\n`,
    );
    expect(reply.content).toBe(appliedText(after));
    expect(thread.status).toBe('fixed');
    expect(llm.requests).toEqual([]);
    expect(ado.violations).toEqual([]);
  });
});
