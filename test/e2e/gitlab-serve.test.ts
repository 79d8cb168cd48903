/**
 * End to end on GitLab: `reviewbot serve` (the built CLI) receives GitLab webhooks delivered the way
 * GitLab sends them (`X-Gitlab-Token`, `X-Gitlab-Event`, `X-Gitlab-Event-UUID`), acknowledges a
 * mention with the `eyes` award emoji and posts the review on the fake GitLab as diff discussions
 * plus a note; replies land in the mention's discussion; the bot's own notes start nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { createDiffScenario, SCENARIO_PATHS, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewScript } from './cli-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const GITLAB_TOKEN = 'glpat-e2eServeTokenThatMustNeverLeak01';
const HOOK_SECRET = 'gitlab-hook-secret-e2e-0123456789';
const PROJECT = 'acme/platform/widgets';
const BOT = 'reviewbot-gl';
const REVIEWER = 'review-bot';

describe('reviewbot serve on GitLab', () => {
  let root: string;
  let scenario: DiffScenario;
  let gitlab: FakeGitLab;
  let llm: FakeLlm;
  let server: ServeProcess;
  let hookUrl: string;

  const deliver = async (noteId: number, options: { token?: string; eventUuid?: string } = {}) =>
    sendGitLabWebhook(hookUrl, 'Note Hook', await gitlab.noteHook(noteId), {
      token: HOOK_SECRET,
      ...options,
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitlab-serve-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    gitlab = await startFakeGitLab({ token: GITLAB_TOKEN, username: BOT });
    await gitlab.addMergeRequest({
      project: PROJECT,
      iid: 7,
      bareRepoPath: scenario.bareRepoPath,
      sourceBranch: scenario.head,
      targetBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      GITLAB_TOKEN,
      GITLAB_URL: gitlab.url,
      GITLAB_WEBHOOK_SECRET: HOOK_SECRET,
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
    hookUrl = `${server.url}/webhooks/gitlab`;
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await gitlab?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('acknowledges a mention with eyes, then posts inline discussions and one note', async () => {
    llm.setScript(reviewScript(scenario));
    const mention = gitlab.addNote({
      project: PROJECT,
      iid: 7,
      author: 'alice',
      body: `@${REVIEWER} please review`,
    });
    const res = await deliver(mention.noteId);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'accepted' });
    await waitFor(() => gitlab.awards.find((a) => a.noteId === mention.noteId), 20_000, 'eyes award');
    expect(gitlab.awards.filter((a) => a.noteId === mention.noteId)).toEqual([
      expect.objectContaining({ name: 'eyes', user: BOT }),
    ]);
    await waitFor(
      () => gitlab.notes.find((n) => n.body.includes('The constants change looks deliberate')),
      60_000,
      'review note',
    );
    const inline = gitlab.diffNotes.filter((n) => n.author === BOT);
    expect(inline.map((n) => [n.position?.new_path, n.position?.new_line, n.position?.old_line])).toEqual([
      [SCENARIO_PATHS.modified, 3, null],
      [SCENARIO_PATHS.modified, null, 3],
      [SCENARIO_PATHS.added, 3, null],
    ]);
    expect(inline[2]?.position).toMatchObject({
      line_range: { start: { type: 'new' }, end: { type: 'new' } },
    });
    expect(gitlab.violations).toEqual([]);
  });

  it('answers a question in the discussion it was asked in', async () => {
    llm.setScript([summaryReply('v3 went from 3 to 300.')]);
    const thread = gitlab.addNote({
      project: PROJECT,
      iid: 7,
      author: 'bob',
      body: 'What changed in v3?',
      thread: true,
    });
    const question = gitlab.addNote({
      project: PROJECT,
      iid: 7,
      author: 'alice',
      body: `@${REVIEWER} can you tell?`,
      discussionId: thread.discussionId,
    });
    expect((await deliver(question.noteId)).json).toEqual({ status: 'accepted' });
    const answer = await waitFor(
      () => gitlab.notes.find((n) => n.body.includes('v3 went from 3 to 300.')),
      30_000,
      'answer in the thread',
    );
    expect(answer).toMatchObject({ discussion_id: thread.discussionId, author: BOT });
    const discussion = gitlab.discussions.find((d) => d.id === thread.discussionId);
    expect(discussion?.notes.map((n) => n.author)).toEqual(['bob', 'alice', BOT]);
  });

  it.each([
    ['the bot account itself', BOT],
    ['the configured reviewer name', REVIEWER],
  ])('ignores a note by %s', async (_name, author) => {
    const calls = llm.requests.length;
    const own = gitlab.addNote({ project: PROJECT, iid: 7, author, body: `@${REVIEWER} review again` });
    const res = await deliver(own.noteId);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ignored', reason: 'comment by a bot' });
    await new Promise((r) => setTimeout(r, 300));
    expect(gitlab.awards.some((a) => a.noteId === own.noteId)).toBe(false);
    expect(llm.requests.length).toBe(calls);
  });

  it.each([
    ['a wrong token', 'not-the-secret'],
    ['no token', undefined],
  ])('answers 401 to %s and does nothing', async (_name, token) => {
    const note = gitlab.addNote({ project: PROJECT, iid: 7, author: 'alice', body: `@${REVIEWER} review` });
    const writes = gitlab.writeRequests().length;
    const res = await sendGitLabWebhook(hookUrl, 'Note Hook', await gitlab.noteHook(note.noteId), {
      ...(token ? { token } : {}),
    });
    expect(res.status).toBe(401);
    expect(res.json).toHaveProperty('error');
    await new Promise((r) => setTimeout(r, 300));
    expect(gitlab.writeRequests().length).toBe(writes);
  });

  it('ignores a repeated X-Gitlab-Event-UUID as a duplicate delivery', async () => {
    const note = gitlab.addNote({ project: PROJECT, iid: 7, author: 'carol', body: 'no mention here' });
    const first = await deliver(note.noteId, { eventUuid: '6f1e2a4c-8f0e-4d55-9d0a-0c1b2a3d4e5f' });
    // carol is not in ALLOWED_USERS: turned away before her note's body is read.
    expect(first.json).toMatchObject({ status: 'ignored', reason: 'user carol is not allowed' });
    const again = await deliver(note.noteId, { eventUuid: '6f1e2a4c-8f0e-4d55-9d0a-0c1b2a3d4e5f' });
    expect(again.json).toEqual({ status: 'ignored', reason: 'duplicate delivery' });
  });

  it('reviews an opened merge request without a mention, and ignores an update without commits', async () => {
    llm.setScript([summaryReply('Automatic review on open.')]);
    const awards = gitlab.awards.length;
    // A merge request the bot has not reviewed yet (§13: a trigger on a reviewed head does nothing).
    await gitlab.addMergeRequest({
      project: PROJECT,
      iid: 8,
      sourceBranch: scenario.head,
      targetBranch: scenario.base,
      title: 'Opened later',
    });
    const opened = await sendGitLabWebhook(
      hookUrl,
      'Merge Request Hook',
      await gitlab.mergeRequestHook(PROJECT, 8, 'open'),
      {
        token: HOOK_SECRET,
      },
    );
    expect(opened.json).toEqual({ status: 'accepted' });
    await waitFor(
      () => gitlab.notes.find((n) => n.body.includes('Automatic review on open.')),
      30_000,
      'review on open',
    );
    expect(gitlab.awards.length).toBe(awards);
    const edited = await sendGitLabWebhook(
      hookUrl,
      'Merge Request Hook',
      await gitlab.mergeRequestHook(PROJECT, 8, 'update'),
      {
        token: HOOK_SECRET,
      },
    );
    expect(edited.json).toEqual({
      status: 'ignored',
      reason: 'Merge Request Hook update without new commits',
    });
  });

  it('never writes the token to its log', () => {
    expect(server.stdout()).not.toContain(GITLAB_TOKEN);
    expect(server.stdout()).not.toContain(HOOK_SECRET);
  });
});
