/**
 * End to end, findings verified by running code, through the built product with
 * `REVIEW_VERIFY=on`, the real bubblewrap sandbox and probes that really run (node):
 * - `reviewbot review <pr-url>` on GitHub: the confirmed finding is posted with its evidence and a
 *   probe-carrying marker, the refuted one leaves no trace, the receipt and `--json` count both,
 *   and the workspace's checkout is untouched;
 * - the same on GitLab (the confirmed finding as a diff discussion);
 * - the loop through `reviewbot serve`: a mention reviews and posts the confirmed finding, then
 *   `@<worker> apply` in its thread commits the suggestion and the probe that confirmed it now
 *   passes, with no model call;
 * - a probe that sleeps past `review.verify_timeout_seconds`: the finding is posted as not
 *   verified, the CLI returns soon after the limit, nothing the probe started survives, and the
 *   workspace is byte for byte what it was when the review's agent ran (hashed from the model's side).
 * The fakes are shared (one fake GitHub, GitLab and Anthropic API for the file); the tests run in order.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/agent/sandbox/index.js';
import { hashTree } from '../../src/review/verify/tree-hash.test-helper.js';
import {
  startFakeGitHub,
  type FakeGitHub,
  type GitHubPullRequest,
  type GitHubReviewComment,
} from '../support/fake-github/index.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { runGit } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { sendGitHubWebhook, startServe, type ServeProcess } from '../support/serve-process.js';
import { GITHUB_TOKEN, LLM_KEY } from './cli-fixture.js';
import { issueCommentPayload, reviewCommentPayload } from './github-payloads.js';
import { waitFor } from './serve-fixture.js';
import {
  createVerifyRepo,
  eventually,
  expectConfirmedSum,
  FINDINGS,
  ONE_AND_ONE,
  PROBE_COMMAND,
  PROBE_FAILURE,
  revParse,
  processesWith,
  SUM_FIX,
  VERIFY_SYSTEM,
  verifyScript,
} from './verify-fixture.js';

const GITLAB_TOKEN = 'glpat-verifyE2eTokenThatMustNeverLeak01';
const SECRET = 'whsec-verify-e2e-0123456789';
const BOT = 'reviewbot-test';
const WORKER = 'work-bot';
const sandbox = await probeSandbox('auto');

let root: string;
let github: FakeGitHub;
let gitlab: FakeGitLab;
let llm: FakeLlm;
let bare: { github: string; gitlab: string; loop: string };
let loopPr: GitHubPullRequest;

/** What every CLI run gets: the model, the verification settings, a private HOME and base dir. */
const commonEnv = (): NodeJS.ProcessEnv => ({
  AGENT_PROVIDER: 'anthropic',
  AGENT_MODEL: 'claude-test',
  ANTHROPIC_API_KEY: LLM_KEY,
  ANTHROPIC_BASE_URL: llm.url,
  WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
  REVIEW_VERIFY: 'on',
  HOME: root,
});
const githubEnv = (): NodeJS.ProcessEnv => ({
  ...commonEnv(),
  CODEHOST_TOKEN: GITHUB_TOKEN,
  CODEHOST_API_URL: github.url,
});

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-verify-e2e-'));
  const repos = path.join(root, 'repos');
  bare = {
    github: createVerifyRepo(repos, 'acme/calc'),
    gitlab: createVerifyRepo(repos, 'acme/calc-gl'),
    loop: createVerifyRepo(repos, 'acme/calc-loop'),
  };
  [github, gitlab, llm] = await Promise.all([
    startFakeGitHub({ token: GITHUB_TOKEN, login: BOT }),
    startFakeGitLab({ token: GITLAB_TOKEN, username: 'reviewbot-gl' }),
    startFakeAnthropic({ apiKey: LLM_KEY }),
  ]);
  const pr = { base: 'main', head: 'feature', title: 'Calc tweaks' };
  await github.addPullRequest({ owner: 'acme', repo: 'calc', number: 7, bareRepoPath: bare.github, ...pr });
  loopPr = await github.addPullRequest({
    owner: 'acme',
    repo: 'calc-loop',
    number: 8,
    bareRepoPath: bare.loop,
    ...pr,
  });
  await gitlab.addMergeRequest({
    project: 'acme/calc',
    iid: 7,
    bareRepoPath: bare.gitlab,
    sourceBranch: 'feature',
    targetBranch: 'main',
    title: pr.title,
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([llm?.close(), github?.close(), gitlab?.close()]);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.runIf(sandbox.kind === 'bwrap')('findings verified by running code, end to end', () => {
  it('GitHub CLI: posts the confirmed finding with its evidence and probe, nothing of the refuted one', async () => {
    const workspace = path.join(root, 'workspaces', 'github', 'acme', 'calc', 'pr-7');
    let atReview: string | undefined;
    const model = verifyScript([FINDINGS.sum, FINDINGS.greet], {
      onReview: () => (atReview = hashTree(workspace)),
    });
    llm.setScript(model.script);
    const head = await revParse(bare.github, 'feature');
    const result = await runCli(
      ['review', `https://github.com/acme/calc/pull/7`, '--json'],
      githubEnv(),
      90_000,
    );
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);

    // The probes really ran in the sandbox: the bug shows, the old line makes it pass, greet('') is fine.
    expect(model.bash.sum[0]).toMatch(/exited with code 1/);
    expect(model.bash.sum[0]).toContain(PROBE_FAILURE);
    expect(model.bash.sum[1]?.trim()).toBe('sum ok');
    expect(model.bash.greet[0]?.trim()).toBe('"Hello, !"');

    expect(github.reviews).toHaveLength(1);
    const review = github.reviews[0]!;
    const inline = github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(inline).toHaveLength(1);
    expect(inline[0]).toMatchObject({ path: 'src/sum.mjs', line: 1, side: 'RIGHT' });
    expectConfirmedSum(inline[0]!.body);
    expect(inline[0]!.body).toContain(`\`\`\`suggestion\n${SUM_FIX}\n\`\`\``);
    // The refuted finding is nowhere: no comment, no body, no marker, no request GitHub received.
    expect(review.body).toMatch(ONE_AND_ONE);
    expect(review.body).toMatch(/\*\*Verdict:\*\* blocking — P1 ×1/);
    // Not in the verdict either.
    expect(review.body).toContain('- Findings: P0 ×0 · P1 ×1 · P2 ×0 · P3 ×0');
    expect(review.body).not.toMatch(/P0 ×[1-9]|greet/);
    for (const request of github.writeRequests())
      expect(JSON.stringify(request.body)).not.toContain('GHOST-CLAIM');
    expect(github.violations).toEqual([]);

    const json = JSON.parse(result.stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(json.posted).toBe(true);
    expect(json.findings).toEqual([
      expect.objectContaining({
        path: 'src/sum.mjs',
        verification: expect.objectContaining({ status: 'confirmed', command: PROBE_COMMAND }),
      }),
    ]);
    expect(json.refuted).toEqual([
      expect.objectContaining({
        path: 'src/greet.mjs',
        severity: 'P0',
        body: FINDINGS.greet.body,
        verification: expect.objectContaining({
          status: 'refuted',
          output: expect.stringContaining('"Hello, !"'),
        }),
      }),
    ]);
    expect(json.receipt.verification).toMatchObject({
      confirmed: 1,
      refuted: 1,
      inconclusive: 0,
      skipped: 0,
    });
    expect(json.verdict.counts).toMatchObject({ P0: 0, P1: 1 });

    // The probes wrote and ran in disposable copies: the checkout is byte for byte what the review
    // saw (its head, clean, no probe file, `sum` still buggy), and nothing was pushed.
    expect(hashTree(workspace)).toBe(atReview);
    expect(runGit(workspace, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(runGit(workspace, ['status', '--porcelain', '--ignored'])).toBe('');
    expect(existsSync(path.join(workspace, 'probe'))).toBe(false);
    expect(runGit(workspace, ['show', 'HEAD:src/sum.mjs'])).toContain('a - b');
    expect(await revParse(bare.github, 'feature')).toBe(head);
    expect(github.gitRequests.some((r) => r.service === 'git-receive-pack')).toBe(false);
  });

  it('GitLab CLI: the confirmed finding is a diff discussion with its evidence, the refuted one is dropped', async () => {
    const model = verifyScript([FINDINGS.sum, FINDINGS.greet]);
    llm.setScript(model.script);
    const url = `${gitlab.url}/acme/calc/-/merge_requests/7`;
    const result = await runCli(
      ['review', url],
      { ...commonEnv(), GITLAB_TOKEN, GITLAB_URL: gitlab.url },
      90_000,
    );
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(model.bash.sum[0]).toContain(PROBE_FAILURE);

    const inline = gitlab.diffNotes;
    expect(inline).toHaveLength(1);
    expect(inline[0]!.position).toMatchObject({ new_path: 'src/sum.mjs', new_line: 1, old_line: null });
    expectConfirmedSum(inline[0]!.body);
    expect(inline[0]!.body).toContain(`\`\`\`suggestion:-0+0\n${SUM_FIX}\n\`\`\``);
    const discussion = gitlab.discussions.find((d) => d.notes[0]?.id === inline[0]!.id);
    expect(discussion?.resolved).toBe(false);
    const summary = gitlab.notes.filter((n) => n.type === null);
    expect(summary).toHaveLength(1);
    expect(summary[0]!.body).toMatch(ONE_AND_ONE);
    expect(summary[0]!.body).toContain('- Findings: P0 ×0 · P1 ×1 · P2 ×0 · P3 ×0');
    for (const note of gitlab.notes) expect(note.body).not.toMatch(/GHOST-CLAIM|greet/);
    for (const request of gitlab.writeRequests())
      expect(JSON.stringify(request.body)).not.toContain('GHOST-CLAIM');
    expect(gitlab.violations).toEqual([]);
  });

  it('a probe that sleeps past the time limit: posted as not verified, nothing survives, the workspace untouched', async () => {
    // The workspace the first test cloned. The review brings it to the head (fetch, reset) before
    // its agent runs; from the review's model call on, nothing may change a byte of it: not the
    // verification run opening its disposable copy, not the probe, not its kill, not the clean-up.
    const workspace = path.join(root, 'workspaces', 'github', 'acme', 'calc', 'pr-7');
    const hashes: Record<string, string> = {};
    const model = verifyScript([FINDINGS.wait], {
      onReview: () => (hashes.atReview = hashTree(workspace)),
      onVerificationStart: () => (hashes.atVerificationStart = hashTree(workspace)),
    });
    llm.setScript(model.script);
    const reviews = github.reviews.length;
    const started = Date.now();
    const cli = runCli(
      ['review', 'acme/calc#7', '--json'],
      { ...githubEnv(), REVIEW_VERIFY_TIMEOUT_SECONDS: '5' },
      60_000,
    );
    // The probe really runs (and `ps` sees it: the check below can fail) ...
    const sleeping = await eventually(
      async () => (await processesWith(model.sleepArgument)).length > 0,
      30_000,
    );
    const result = await cli;
    const elapsed = Date.now() - started;
    expect(sleeping).toBe(true);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(elapsed).toBeLessThan(5_000 + 15_000);
    // ... and nothing of it outlives the review.
    expect(await processesWith(model.sleepArgument)).toEqual([]);
    expect(await processesWith(model.sleepCommand.split('# ')[1]!)).toEqual([]);
    const after = hashTree(workspace);
    expect(hashes).toEqual({ atReview: after, atVerificationStart: after });

    expect(github.reviews).toHaveLength(reviews + 1);
    const review = github.reviews[reviews]!;
    const inline = github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect(inline).toHaveLength(1);
    expect(inline[0]).toMatchObject({ path: 'src/wait.mjs', line: 1 });
    expect(inline[0]!.body).toMatch(
      /^\*\*P1\*\* `wait` never resolves for a negative delay\.\n\n_Not verified by running code\._\n\n<!-- reviewbot:finding [^>]* sev=P1 -->$/,
    );
    expect(review.body).toMatch(
      /^- Verification: 0 confirmed · 0 refuted \(not posted\) · 1 inconclusive · 0 skipped · [\d.]+ s$/m,
    );
    const json = JSON.parse(result.stdout) as { findings: Array<Record<string, unknown>> };
    expect(json.findings).toEqual([
      expect.objectContaining({
        path: 'src/wait.mjs',
        verification: expect.objectContaining({ status: 'inconclusive', reason: 'timed out after 5 s' }),
      }),
    ]);
    expect(github.violations).toEqual([]);
  });

  describe('the loop through reviewbot serve on GitHub', () => {
    let server: ServeProcess;
    const onLoop = (url: string | undefined) => url?.endsWith('/repos/acme/calc-loop/pulls/8') === true;
    beforeAll(async () => {
      server = await startServe({
        ...commonEnv(),
        CODEHOST_TOKEN: GITHUB_TOKEN,
        CODEHOST_API_URL: github.url,
        CODEHOST_WEBHOOK_SECRET: SECRET,
        REVIEWER_BOT_USERNAME: 'review-bot',
        WORKER_BOT_USERNAME: WORKER,
        ALLOWED_USERS: 'alice',
        CLEANUP_INTERVAL_HOURS: '0',
      });
    }, 30_000);
    afterAll(async () => {
      await server?.stop();
    });

    /** Alice writes `body` on acme/calc-loop#8, in the thread of `thread` if given; its webhook goes to `url`. */
    async function comment(url: string, body: string, thread?: GitHubReviewComment) {
      const pr = { repo: 'acme/calc-loop', pr: 8, body, login: 'alice' };
      const at = { owner: 'acme', repo: 'calc-loop', number: 8, body, user: 'alice' };
      if (thread === undefined) {
        const seeded = github.addIssueComment(at);
        const payload = issueCommentPayload({ ...pr, commentId: seeded.id });
        return sendGitHubWebhook(url, 'issue_comment', payload, { secret: SECRET });
      }
      const where = { path: thread.path, line: thread.line ?? 1 };
      const seeded = await github.addReviewComment({ ...at, ...where, side: 'RIGHT', inReplyTo: thread.id });
      const payload = reviewCommentPayload({
        ...pr,
        ...where,
        pullRequest: loopPr,
        inReplyTo: thread.id,
        commentId: seeded.id,
      });
      return sendGitHubWebhook(url, 'pull_request_review_comment', payload, { secret: SECRET });
    }

    it('a mention reviews with verification; apply in the thread commits the fix and the probe now passes', async () => {
      // The review: `@review-bot review` by alice.
      const model = verifyScript([FINDINGS.sum, FINDINGS.greet]);
      llm.setScript(model.script);
      const hook = await comment(server.url, '@review-bot review');
      expect(hook.json).toMatchObject({ status: 'accepted' });
      const review = await waitFor(
        () => github.reviews.find((r) => onLoop(r.pull_request_url) && r.user?.login === BOT),
        60_000,
        'the review of acme/calc-loop#8',
      );
      expect(review.body).toMatch(ONE_AND_ONE);
      const inline = github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
      expect(inline).toHaveLength(1);
      const finding = inline[0]!;
      expectConfirmedSum(finding.body);
      expect(JSON.stringify(github.writeRequests().map((r) => r.body))).not.toContain('GHOST-CLAIM');

      // The apply: `@work-bot apply` by alice in the finding's thread.
      const before = await revParse(bare.loop, 'feature');
      const modelCalls = llm.requests.length;
      await comment(server.url, `@${WORKER} apply`, finding);
      const reply = await waitFor(
        () => github.reviewComments.find((c) => c.in_reply_to_id === finding.id && c.user?.login === BOT),
        60_000,
        'the apply reply',
      );
      const after = await revParse(bare.loop, 'feature');
      expect(after).not.toBe(before);
      expect(await revParse(bare.loop, `${after}^`)).toBe(before);
      expect(runGit(bare.loop, ['show', `${after}:src/sum.mjs`])).toBe(`${SUM_FIX}\n`);
      expect(runGit(bare.loop, ['diff', '--name-only', before, after])).toBe('src/sum.mjs\n');
      expect(reply.body).toBe(
        [
          `Applied this suggestion in commit ${after} on \`feature\`, and resolved this thread.`,
          `The probe that confirmed this finding now passes: \`${PROBE_COMMAND}\` exits 0 on the new head.`,
        ].join('\n\n'),
      );
      expect(github.reviewThreads.find((t) => t.rootCommentId === finding.id)?.resolved).toBe(true);
      expect(llm.requests.length).toBe(modelCalls);
      expect(llm.requests.filter((r) => r.system.includes(VERIFY_SYSTEM)).length).toBeGreaterThan(0);
      expect(github.violations).toEqual([]);
    });
  });
});
