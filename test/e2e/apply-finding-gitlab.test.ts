/**
 * `@<worker> apply` on GitLab, through `reviewbot serve` and the fake GitLab: in the diff discussion
 * the bot started with a finding whose suggestion is in GitLab's `suggestion:-N+0` form, the product
 * replaces the two lines itself (CRLF kept, no final newline kept, no model call), pushes one
 * commit, replies in the discussion with its SHA and resolves the discussion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
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

const TOKEN = 'glpat-applyE2eTokenThatMustNeverLeak01';
const SECRET = 'gitlab-apply-secret-0123456789';
const PROJECT = 'acme/platform/widgets';
const BOT = 'reviewbot-gl';

/** GitLab's suggestion syntax, as the GitLab platform renders it. */
const gitlabSuggestion = (suggestion: string, lineCount: number) =>
  `\`\`\`suggestion:-${lineCount - 1}+0\n${suggestion}\n\`\`\``;

let root: string;
let repo: ApplyRepo;
let gitlab: FakeGitLab;
let llm: FakeLlm;
let server: ServeProcess;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-gitlab-'));
  repo = createApplyRepo(root, 'acme/widgets');
  gitlab = await startFakeGitLab({ token: TOKEN, username: BOT });
  await gitlab.addMergeRequest({
    project: PROJECT,
    iid: 7,
    bareRepoPath: repo.bare,
    sourceBranch: 'feature',
    targetBranch: 'main',
    title: 'Apply',
  });
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  server = await startServe({
    GITLAB_TOKEN: TOKEN,
    GITLAB_URL: gitlab.url,
    GITLAB_WEBHOOK_SECRET: SECRET,
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
  await gitlab?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@worker apply in a finding discussion (GitLab)', () => {
  it('applies the suggestion byte for byte, replies with the SHA and resolves the discussion', async () => {
    const finding = gitlab.addNote({
      project: PROJECT,
      iid: 7,
      author: BOT,
      body: applyFindingBody(gitlabSuggestion),
      position: { newPath: APPLY_CASE.path, newLine: APPLY_CASE.line },
    });
    const before = await repo.head();
    const mention = gitlab.addNote({
      project: PROJECT,
      iid: 7,
      author: 'alice',
      body: `@${APPLY_WORKER} apply`,
      discussionId: finding.discussionId,
    });
    const res = await sendGitLabWebhook(
      `${server.url}/webhooks/gitlab`,
      'Note Hook',
      await gitlab.noteHook(mention.noteId),
      { token: SECRET },
    );
    expect(res.json).toEqual({ status: 'accepted' });
    const discussion = () => gitlab.discussions.find((d) => d.id === finding.discussionId)!;
    const reply = await waitFor(
      () => discussion().notes.find((n) => n.author === BOT && n.id !== finding.noteId),
      30_000,
      'apply reply',
    );
    const after = await repo.head();
    expect(after).not.toBe(before);
    expect((await repo.show(APPLY_CASE.path)).toString('binary')).toBe(APPLY_CASE.applied);
    expect(await repo.changed(before, after)).toBe(`${APPLY_CASE.path}\n`);
    expect(await repo.log('%B', after)).toBe('Add spaces around the operator.\n\nRequested by @alice\n\n');
    expect(reply.body).toBe(appliedText(after));
    expect(discussion().resolved).toBe(true);
    expect(llm.requests).toEqual([]);
    expect(gitlab.violations).toEqual([]);
  });
});
