/**
 * `@<worker> apply` in a thread the bot started with a finding, through `reviewbot serve` and the
 * fake GitHub: a suggestion is applied by the product itself (byte-exact: CRLF kept, no final
 * newline kept, a multi-line range), committed and pushed, the reply names the SHA and the thread
 * is resolved; a LEFT finding is refused with a reason; a stale finding commits nothing; `apply
 * all` applies every open suggestion in one commit and lists what it skipped; a user outside the
 * allow list is ignored; a finding without a suggestion becomes a WORKER agent run. Each applied
 * finding counts once as `addressed` in `/metrics`. A verified finding's probe (in its marker) runs
 * again on the new head, and the reply says whether it now passes or what still fails.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGitHubSuggestion } from '../../src/platforms/github/suggestion.js';
import { fingerprintLines, normalizeLines } from '../../src/review/memory/fingerprint.js';
import { renderFindingMarker } from '../../src/review/memory/markers.js';
import { encodeProbe, type Probe } from '../../src/review/verify/probe.js';
import { startFakeGitHub, type FakeGitHub, type GitHubPullRequest } from '../support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { commitToBranch, createBareRepo, gitEnv } from '../support/git-fixtures.js';
import { sendGitHubWebhook, startServe, type ServeProcess } from '../support/serve-process.js';
import { issueCommentPayload, reviewCommentPayload } from './github-payloads.js';
import { GITHUB_TOKEN, LLM_KEY } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const SECRET = 'whsec-apply-e2e-0123456789';
const BOT = 'reviewbot-test';
const WORKER = 'work-bot';
const run = promisify(execFile);
const git = async (bare: string, args: string[]): Promise<string> =>
  (await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() })).stdout;

const FILES = {
  'src/win.ts': 'export const a = 1;\r\nexport function f(x: number) {\r\n  return x+1;\r\n}',
  'src/calc.ts': 'export function g(n: number) {\n  let r = n;\n  r = r * 2;\n  return r;\n}\n',
  'src/old.ts': 'const kept = 2;\n',
  'src/stale.ts': 'export const now = 2;\n',
  'src/plain.ts': 'export const limit = 10;\n',
  'src/many.ts': 'one\ntwo\nthree\nfour\nfive\nsix\n',
  'src/gap.ts': 'a();\n\n  b();\nc();\n',
  'src/sum.mjs': 'export const sum = (a, b) => a - b;\n',
  'src/mul.mjs': 'export const mul = (a, b) => a + b;\n',
};

/** A probe as verification keeps it: a script that fails while `fn(a, b)` is not `want`. */
const probeOf = (fn: string, a: number, b: number, want: number): Probe => ({
  command: `node probe/${fn}.check.mjs`,
  files: [
    {
      path: `probe/${fn}.check.mjs`,
      content: [
        `import { ${fn} } from '../src/${fn}.mjs';`,
        `const got = ${fn}(${a}, ${b});`,
        `if (got !== ${want}) { console.error('${fn}(${a},${b}) =', got, 'want ${want}'); process.exit(1); }`,
        `console.log('${fn} ok');`,
      ].join('\n'),
    },
  ],
});

let root: string;
let bare: string;
let github: FakeGitHub;
let llm: FakeLlm;
let server: ServeProcess;
let pr: GitHubPullRequest;

/** Seeds a bot finding (body, optional suggestion, marker over `code`) and returns its root comment id. */
async function finding(o: {
  path: string;
  line: number;
  startLine?: number;
  side?: 'LEFT' | 'RIGHT';
  text: string;
  code: string[];
  suggestion?: string;
  probe?: Probe;
}): Promise<number> {
  const marker = renderFindingMarker({
    fp: fingerprintLines(o.path, o.code)!,
    side: o.side ?? 'RIGHT',
    n: normalizeLines(o.code).length,
    severity: 'P1',
    ...(o.probe ? { probe: encodeProbe(o.probe)! } : {}),
  });
  const parts = [
    o.text,
    ...(o.suggestion !== undefined ? [renderGitHubSuggestion(o.suggestion)] : []),
    marker,
  ];
  const c = await github.addReviewComment({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    path: o.path,
    line: o.line,
    side: o.side ?? 'RIGHT',
    ...(o.startLine ? { startLine: o.startLine } : {}),
    body: parts.join('\n\n'),
    user: BOT,
  });
  return c.id;
}

/** `login` replies `body` in the thread of `rootId` (stored in the fake, webhook delivered). */
async function replyInThread(rootId: number, body: string, login = 'alice') {
  const root = github.reviewComments.find((c) => c.id === rootId)!;
  const seeded = await github.addReviewComment({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    path: root.path,
    line: root.line ?? 1,
    side: (root.side as 'LEFT' | 'RIGHT') ?? 'RIGHT',
    body,
    user: login,
    inReplyTo: rootId,
  });
  const payload = reviewCommentPayload({
    repo: 'acme/widgets',
    pr: 7,
    body,
    login,
    pullRequest: pr,
    path: root.path,
    line: root.line ?? 1,
    inReplyTo: rootId,
    commentId: seeded.id,
  });
  return sendGitHubWebhook(server.url, 'pull_request_review_comment', payload, { secret: SECRET });
}

/** The bot's replies in the thread of `rootId`. */
const botReplies = (rootId: number) =>
  github.reviewComments.filter((c) => c.in_reply_to_id === rootId && c.user?.login === BOT);
const resolved = (rootId: number) => github.reviewThreads.find((t) => t.rootCommentId === rootId)?.resolved;
const head = async () => (await git(bare, ['rev-parse', 'refs/heads/feature'])).trim();
const show = async (file: string) =>
  (await run('git', [`--git-dir=${bare}`, 'show', `feature:${file}`], { env: gitEnv(), encoding: 'buffer' }))
    .stdout as unknown as Buffer;

const ids: Record<string, number> = {};

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-apply-'));
  bare = createBareRepo(path.join(root, 'repos'), 'acme/widgets');
  commitToBranch(bare, {
    branch: 'main',
    message: 'base',
    changes: { write: { 'README.md': '# w\n', 'src/old.ts': 'const removed = 1;\nconst kept = 2;\n' } },
  });
  commitToBranch(bare, { branch: 'feature', from: 'main', message: 'feature', changes: { write: FILES } });
  github = await startFakeGitHub({ token: GITHUB_TOKEN, login: BOT });
  pr = (await github.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    bareRepoPath: bare,
    base: 'main',
    head: 'feature',
    title: 'Apply',
  })) as GitHubPullRequest;
  ids.win = await finding({
    path: 'src/win.ts',
    startLine: 3,
    line: 4,
    text: 'Add spaces around the operator.\nSecond line of the finding.',
    code: ['  return x+1;', '}'],
    suggestion: '  return x + 1;\n}',
  });
  ids.calc = await finding({
    path: 'src/calc.ts',
    startLine: 2,
    line: 3,
    text: 'Fold the two statements.',
    code: ['  let r = n;', '  r = r * 2;'],
    suggestion: '  const r = n * 2;',
  });
  ids.gap = await finding({
    path: 'src/gap.ts',
    startLine: 2,
    line: 3,
    text: 'Drop the blank line.',
    code: ['', '  b();'],
    suggestion: '  b();',
  });
  ids.left = await finding({
    path: 'src/old.ts',
    line: 1,
    side: 'LEFT',
    text: 'Why was this removed?',
    code: ['const removed = 1;'],
    suggestion: 'const removed = 1;',
  });
  ids.stale = await finding({
    path: 'src/stale.ts',
    line: 1,
    text: 'Name the constant.',
    code: ['export const old = 1;'],
    suggestion: 'export const NAMED = 1;',
  });
  ids.plain = await finding({
    path: 'src/plain.ts',
    line: 1,
    text: 'The limit should be configurable.',
    code: ['export const limit = 10;'],
  });
  ids.manyA = await finding({ path: 'src/many.ts', line: 2, text: 'A', code: ['two'], suggestion: 'TWO' });
  ids.manyB = await finding({
    path: 'src/many.ts',
    startLine: 2,
    line: 3,
    text: 'B',
    code: ['two', 'three'],
    suggestion: 'X',
  });
  ids.manyC = await finding({
    path: 'src/many.ts',
    line: 5,
    text: 'C',
    code: ['five'],
    suggestion: 'FIVE\nFIVE-B',
  });
  ids.sum = await finding({
    path: 'src/sum.mjs',
    line: 1,
    text: '`sum` subtracts.',
    code: ['export const sum = (a, b) => a - b;'],
    suggestion: 'export const sum = (a, b) => a + b;',
    probe: probeOf('sum', 2, 2, 4),
  });
  ids.mul = await finding({
    path: 'src/mul.mjs',
    line: 1,
    text: '`mul` adds.',
    code: ['export const mul = (a, b) => a + b;'],
    suggestion: 'export const mul = (a, b) => a + b + 0;',
    probe: probeOf('mul', 2, 3, 6),
  });
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  server = await startServe({
    CODEHOST_TOKEN: GITHUB_TOKEN,
    CODEHOST_API_URL: github.url,
    CODEHOST_WEBHOOK_SECRET: SECRET,
    REVIEWER_BOT_USERNAME: 'review-bot',
    WORKER_BOT_USERNAME: WORKER,
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
  await github?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('@worker apply in a finding thread (GitHub)', () => {
  it('ignores a user outside the allow list', async () => {
    const before = await head();
    const res = await replyInThread(ids.calc!, `@${WORKER} apply`, 'mallory');
    expect(res.json).toMatchObject({ status: 'ignored' });
    await new Promise((r) => setTimeout(r, 500));
    expect(botReplies(ids.calc!)).toEqual([]);
    expect(await head()).toBe(before);
  });

  it('applies a multi-line suggestion on a CRLF file without a final newline, byte for byte', async () => {
    const before = await head();
    const requests = llm.requests.length;
    await replyInThread(ids.win!, `@${WORKER} apply`);
    const reply = await waitFor(() => botReplies(ids.win!)[0], 30_000, 'apply reply');
    const after = await head();
    expect(after).not.toBe(before);
    expect((await show('src/win.ts')).toString('binary')).toBe(
      'export const a = 1;\r\nexport function f(x: number) {\r\n  return x + 1;\r\n}',
    );
    expect(reply.body).toBe(
      `Applied this suggestion in commit ${after} on \`feature\`, and resolved this thread.`,
    );
    expect(resolved(ids.win!)).toBe(true);
    expect(await git(bare, ['log', '-1', '--format=%B', after])).toBe(
      'Add spaces around the operator.\n\nRequested by @alice\n\n',
    );
    expect(await git(bare, ['diff', '--name-only', before, after])).toBe('src/win.ts\n');
    expect(llm.requests.length).toBe(requests); // no agent run, no tokens
  });

  it('replaces a range with fewer lines', async () => {
    await replyInThread(ids.calc!, `@${WORKER} apply`);
    await waitFor(() => botReplies(ids.calc!)[0], 30_000, 'apply reply');
    expect((await show('src/calc.ts')).toString()).toBe(
      'export function g(n: number) {\n  const r = n * 2;\n  return r;\n}\n',
    );
  });

  it('replaces exactly the lines of the thread, a leading blank line included (GitHub startLine)', async () => {
    await replyInThread(ids.gap!, `@${WORKER} apply`);
    await waitFor(() => botReplies(ids.gap!)[0], 30_000, 'apply reply');
    expect((await show('src/gap.ts')).toString()).toBe('a();\n  b();\nc();\n');
  });

  it('refuses a LEFT finding with the reason and commits nothing', async () => {
    const before = await head();
    await replyInThread(ids.left!, `@${WORKER} apply`);
    const reply = await waitFor(() => botReplies(ids.left!)[0], 30_000, 'left reply');
    expect(reply.body).toContain('Nothing was committed: it is on the old side of the diff');
    expect(await head()).toBe(before);
    expect(resolved(ids.left!)).toBe(false);
  });

  it('commits nothing when the finding no longer matches the code', async () => {
    const before = await head();
    await replyInThread(ids.stale!, `@${WORKER} apply`);
    const reply = await waitFor(() => botReplies(ids.stale!)[0], 30_000, 'stale reply');
    expect(reply.body).toContain('no longer applies to the current code');
    expect(await head()).toBe(before);
    expect(resolved(ids.stale!)).toBe(false);
  });

  it('runs the WORKER agent on a finding without a suggestion, then commits, replies, resolves', async () => {
    llm.setScript([
      {
        toolCalls: [
          {
            name: 'Edit',
            input: {
              file_path: 'src/plain.ts',
              old_string: 'export const limit = 10;',
              new_string: 'export const limit = Number(process.env.LIMIT ?? 10);',
            },
          },
        ],
      },
      { text: 'Made the limit configurable.' },
    ]);
    const requests = llm.requests.length;
    await replyInThread(ids.plain!, `@${WORKER} apply and read it from LIMIT`);
    const reply = await waitFor(() => botReplies(ids.plain!)[0], 60_000, 'agent reply');
    const after = await head();
    expect(reply.body).toContain('Made the limit configurable.');
    expect(reply.body).toContain(`Pushed commit ${after}`);
    expect(resolved(ids.plain!)).toBe(true);
    const prompt = llm.requests[requests]!.messages.map((m) => m.text).join('\n');
    expect(prompt).toContain('The limit should be configurable.');
    expect(prompt).toContain('src/plain.ts');
    expect(prompt).toContain('and read it from LIMIT');
    expect(await git(bare, ['log', '-1', '--format=%s', after])).toBe('The limit should be configurable.\n');
  });

  it('runs the probe of a verified finding again on the new head: it now passes', async () => {
    const requests = llm.requests.length;
    await replyInThread(ids.sum!, `@${WORKER} apply`);
    const reply = await waitFor(() => botReplies(ids.sum!)[0], 60_000, 'apply reply');
    const after = await head();
    expect(reply.body).toBe(
      [
        `Applied this suggestion in commit ${after} on \`feature\`, and resolved this thread.`,
        'The probe that confirmed this finding now passes: `node probe/sum.check.mjs` exits 0 on the new head.',
      ].join('\n\n'),
    );
    // The probe's file ran in a disposable copy: it is in no commit.
    expect(await git(bare, ['ls-tree', '-r', '--name-only', after])).not.toContain('probe/');
    expect(llm.requests.length).toBe(requests);
  });

  it('shows what still fails when the applied change does not fix the bug', async () => {
    await replyInThread(ids.mul!, `@${WORKER} apply`);
    const reply = await waitFor(() => botReplies(ids.mul!)[0], 60_000, 'apply reply');
    expect(reply.body).toContain(
      'The probe that confirmed this finding still fails on the new head (exit 1):',
    );
    expect(reply.body).toContain('mul(2,3) = 5 want 6');
    expect(reply.body).toMatch(/<details>[\s\S]*node probe\/mul\.check\.mjs[\s\S]*<\/details>/);
    expect(resolved(ids.mul!)).toBe(true);
  });

  it('apply all: every open suggestion in one commit, overlapping and stale ones listed as skipped', async () => {
    const before = await head();
    const body = `@${WORKER} apply all`;
    const seeded = github.addIssueComment({ owner: 'acme', repo: 'widgets', number: 7, body, user: 'alice' });
    await sendGitHubWebhook(
      server.url,
      'issue_comment',
      issueCommentPayload({ repo: 'acme/widgets', pr: 7, body, login: 'alice', commentId: seeded.id }),
      { secret: SECRET },
    );
    const reply = await waitFor(
      () =>
        github.issueComments.find((c) => c.user?.login === BOT && c.body?.includes('Applied 2 suggestions')),
      30_000,
      'apply all reply',
    );
    const after = await head();
    expect(await git(bare, ['rev-parse', `${after}^`])).toBe(`${before}\n`);
    expect((await show('src/many.ts')).toString()).toBe('one\nTWO\nthree\nfour\nFIVE\nFIVE-B\nsix\n');
    expect(reply.body).toContain(`commit ${after}`);
    expect(reply.body).toMatch(/`src\/many\.ts:3`: its lines overlap another finding/);
    expect(reply.body).toMatch(/`src\/stale\.ts:1`: its lines changed since it was posted/);
    expect(reply.body).toMatch(/`src\/old\.ts:1`: it is on the old side/);
    expect([resolved(ids.manyA!), resolved(ids.manyB!), resolved(ids.manyC!)]).toEqual([true, false, true]);
    expect(github.violations).toEqual([]);
  });

  it('counts each applied finding once as addressed in /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    // win, calc, gap, plain, sum, mul, manyA, manyC.
    expect(metrics).toContain(
      'reviewbot_findings_total{platform="github",severity="P1",outcome="addressed"} 8',
    );
  });
});
