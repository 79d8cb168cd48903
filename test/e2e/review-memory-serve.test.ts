/**
 * End to end, review memory in `reviewbot serve` on GitHub and GitLab (CONTRACT §13): with `pr_push` enabled, each push
 * is reviewed once and incrementally; a trigger on the already-reviewed head runs no agent and
 * posts nothing (the same `synchronize` again is a duplicate event, not even queued); a mention on
 * that head still runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub, type GitHubPullRequest } from '../support/fake-github/index.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { sendGitHubWebhook, startServe, type ServeProcess } from '../support/serve-process.js';
import { issueCommentPayload, pullRequestPayload } from './github-payloads.js';
import { createMemoryRepo, LLM_KEY, tempRoot, type MemoryRepo } from './memory-fixture.js';
import { summaryReply, waitFor } from './serve-fixture.js';

const TOKEN = 'ghp_memoryServeTokenThatMustNeverLeak0123';
const SECRET = 'whsec-memory-serve-0123456789';
const BOT = 'reviewbot-test';
/** The job's log line when a trigger had nothing new to review (§13). */
const SKIPPED = 'nothing new to review since the last review; nothing posted';

describe('reviewbot serve: review memory with pr_push', () => {
  let root: ReturnType<typeof tempRoot>;
  let github: FakeGitHub;
  let llm: FakeLlm;
  let server: ServeProcess;
  let repo: MemoryRepo;
  let pr: GitHubPullRequest;

  const botBodies = () =>
    [
      ...github.reviews.filter((r) => r.user?.login === BOT && r.body),
      ...github.issueComments.filter((c) => c.user?.login === BOT),
    ].map((x) => x.body ?? '');
  const trigger = (action: string) =>
    sendGitHubWebhook(server.url, 'pull_request', pullRequestPayload(action, pr, 'acme/calc', 'octocat'), {
      secret: SECRET,
    });

  beforeAll(async () => {
    root = tempRoot();
    repo = createMemoryRepo(root.path, 'acme/calc');
    repo.push1();
    github = await startFakeGitHub({ token: TOKEN, login: BOT });
    pr = await github.addPullRequest({
      owner: 'acme',
      repo: 'calc',
      number: 3,
      bareRepoPath: repo.bare,
      base: 'main',
      head: 'feature',
      title: 'Calc',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      REVIEWER_BOT_USERNAME: 'review-bot',
      REVIEWER_TRIGGERS: 'pr_opened,pr_push',
      ALLOWED_USERS: 'alice',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root.path,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await github?.close();
    root?.remove();
  });

  it('reviews the opened pull request, then each push incrementally', async () => {
    llm.setScript([summaryReply('First look.'), summaryReply('Second look.')]);
    expect((await trigger('opened')).json).toMatchObject({ status: 'accepted' });
    await waitFor(() => botBodies().some((b) => b.includes('First look.')), 30_000, 'first review');
    repo.push2();
    expect((await trigger('synchronize')).json).toMatchObject({ status: 'accepted' });
    const second = await waitFor(
      () => botBodies().find((b) => b.includes('Second look.')),
      30_000,
      'second review',
    );
    expect(second).toContain('_Incremental review: changes since');
    const prompt = llm.requests.at(-1)!.messages.at(-1)!.text;
    expect(prompt).toContain('// PUSH2 line 1');
    expect(prompt).not.toContain('i <= items.length');
    expect(github.violations).toEqual([]);
  });

  it('a trigger on the reviewed head runs no agent and posts nothing; a mention still runs', async () => {
    const calls = llm.requests.length;
    const posts = botBodies().length;
    const fetches = github.gitRequests.length;
    const done = server.logs.filter((l) => l.msg === SKIPPED).length;
    // As GitHub sends it: the pull request with its current head (the one reviewed last).
    const current = (await (
      await fetch(`${github.url}/repos/acme/calc/pulls/3`, { headers: { authorization: `token ${TOKEN}` } })
    ).json()) as GitHubPullRequest;
    const synchronize = () =>
      sendGitHubWebhook(
        server.url,
        'pull_request',
        pullRequestPayload('synchronize', current, 'acme/calc', 'octocat'),
        { secret: SECRET },
      );
    expect((await synchronize()).json).toMatchObject({ status: 'accepted' });
    await waitFor(
      () => server.logs.filter((l) => l.msg === SKIPPED).length > done,
      30_000,
      'the skipped job',
    );
    // The same push delivered again under a new delivery id is the same event: not even queued.
    expect((await synchronize()).json).toEqual({ status: 'ignored', reason: 'duplicate event' });
    expect(llm.requests.length).toBe(calls);
    expect(botBodies().length).toBe(posts);
    expect(github.gitRequests.length).toBe(fetches); // not even a git fetch

    llm.setScript([summaryReply('Asked again: still fine.')]);
    const seeded = github.addIssueComment({
      owner: 'acme',
      repo: 'calc',
      number: 3,
      body: '@review-bot again please',
      user: 'alice',
    });
    const payload = issueCommentPayload({
      repo: 'acme/calc',
      pr: 3,
      body: seeded.body ?? '',
      login: 'alice',
      commentId: seeded.id,
    });
    expect(
      (await sendGitHubWebhook(server.url, 'issue_comment', payload, { secret: SECRET })).json,
    ).toMatchObject({
      status: 'accepted',
    });
    await waitFor(
      () => botBodies().some((b) => b.includes('Asked again: still fine.')),
      30_000,
      'mention review',
    );
    expect(llm.requests.length).toBe(calls + 1);
    expect(github.violations).toEqual([]);
  });
});

describe('reviewbot serve on GitLab: review memory with pr_push', () => {
  const GL_TOKEN = 'glpat-memoryServeTokenThatMustNeverLeak1';
  const HOOK = 'gitlab-memory-hook-secret-0123456789';
  const PROJECT = 'acme/geo/calc';
  let root: ReturnType<typeof tempRoot>;
  let gitlab: FakeGitLab;
  let llm: FakeLlm;
  let server: ServeProcess;
  let repo: MemoryRepo;
  let hookUrl: string;

  const botNotes = () =>
    gitlab.notes.filter((n) => n.author === 'reviewbot-gl' && n.type === null).map((n) => n.body);
  const hook = async (action: string, oldrev?: string) =>
    sendGitLabWebhook(
      hookUrl,
      'Merge Request Hook',
      await gitlab.mergeRequestHook(PROJECT, 3, action, oldrev),
      {
        token: HOOK,
      },
    );

  beforeAll(async () => {
    root = tempRoot();
    repo = createMemoryRepo(root.path, 'acme/calc');
    repo.push1();
    gitlab = await startFakeGitLab({ token: GL_TOKEN, username: 'reviewbot-gl' });
    await gitlab.addMergeRequest({
      project: PROJECT,
      iid: 3,
      bareRepoPath: repo.bare,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'Calc',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      GITLAB_TOKEN: GL_TOKEN,
      GITLAB_URL: gitlab.url,
      GITLAB_WEBHOOK_SECRET: HOOK,
      REVIEWER_BOT_USERNAME: 'review-bot',
      REVIEWER_TRIGGERS: 'pr_opened,pr_push',
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-test',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: `${root.path}/workspaces`,
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root.path,
    });
    hookUrl = `${server.url}/webhooks/gitlab`;
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await gitlab?.close();
    root?.remove();
  });

  it('reviews the opened merge request, the push incrementally, and a repeated trigger not at all', async () => {
    llm.setScript([summaryReply('First look.'), summaryReply('Second look.')]);
    expect((await hook('open')).json).toEqual({ status: 'accepted' });
    await waitFor(() => botNotes().some((b) => b.includes('First look.')), 30_000, 'first review');
    const before = repo.work.revParse();
    repo.push2();
    expect((await hook('update', before)).json).toEqual({ status: 'accepted' });
    const second = await waitFor(
      () => botNotes().find((b) => b.includes('Second look.')),
      30_000,
      'second review',
    );
    expect(second).toContain('_Incremental review: changes since');
    expect(llm.requests.at(-1)!.messages.at(-1)!.text).not.toContain('i <= items.length');

    const calls = llm.requests.length;
    const notes = botNotes().length;
    const fetches = gitlab.gitRequests.length;
    const skipped = server.logs.filter((l) => l.msg === SKIPPED).length;
    expect((await hook('open')).json).toEqual({ status: 'accepted' });
    await waitFor(
      () => server.logs.filter((l) => l.msg === SKIPPED).length > skipped,
      30_000,
      'the skipped job',
    );
    expect(llm.requests.length).toBe(calls);
    expect(botNotes().length).toBe(notes);
    expect(gitlab.gitRequests.length).toBe(fetches);
    expect(gitlab.violations).toEqual([]);
  });
});
