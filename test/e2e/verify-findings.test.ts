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
 *   workspace is byte for byte what it was.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/agent/sandbox/index.js';
import { parseFindingMarker } from '../../src/review/memory/markers.js';
import { decodeProbe } from '../../src/review/verify/probe.js';
import { hashTree } from '../../src/review/verify/tree-hash.test-helper.js';
import { startFakeGitHub, type FakeGitHub, type GitHubPullRequest } from '../support/fake-github/index.js';
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
  FINDINGS,
  PROBE_COMMAND,
  PROBE_FAILURE,
  PROBE_PATH,
  PROBE_SOURCE,
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

/** The receipt line of a review that confirmed one finding and refuted another. */
const ONE_AND_ONE = /^- Verification: 1 confirmed · 1 refuted \(not posted\) · 0 inconclusive · 0 skipped · [\d.]+ s$/m;

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

/** The marker of an inline comment body, and the probe it carries. */
function markerOf(body: string) {
  const marker = parseFindingMarker(body);
  return { marker, probe: marker?.probe ? decodeProbe(marker.probe) : undefined };
}

/** What the product keeps of a confirmed `sum` finding, whatever the platform. */
function expectConfirmedSum(body: string) {
  expect(body).toMatch(/^\*\*P1\*\* `sum` subtracts its arguments instead of adding them\./);
  expect(body).toMatch(/<details>\n<summary>Verified by running code<\/summary>\n/);
  expect(body).toContain(`\`\`\`sh\n${PROBE_COMMAND}\n\`\`\``);
  // The output the probe really printed in the sandbox.
  expect(body).toMatch(new RegExp(`\`\`\`text\\n[^]*${PROBE_FAILURE.replace(/[()]/g, '\\$&')}[^]*\`\`\`\n\n</details>`));
  expect(body).not.toContain('_Not verified by running code._');
  const { marker, probe } = markerOf(body);
  expect(marker).toMatchObject({ severity: 'P1', side: 'RIGHT' });
  expect(probe).toEqual({ command: PROBE_COMMAND, files: [{ path: PROBE_PATH, content: PROBE_SOURCE }] });
}

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
    const model = verifyScript([FINDINGS.sum, FINDINGS.greet]);
    llm.setScript(model.script);
    const head = await revParse(bare.github, 'feature');
    const result = await runCli(['review', `https://github.com/acme/calc/pull/7`, '--json'], githubEnv(), 90_000);
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
    for (const request of github.writeRequests()) expect(JSON.stringify(request.body)).not.toContain('GHOST-CLAIM');
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
        verification: expect.objectContaining({ status: 'refuted', output: expect.stringContaining('"Hello, !"') }),
      }),
    ]);
    expect(json.receipt.verification).toMatchObject({ confirmed: 1, refuted: 1, inconclusive: 0, skipped: 0 });
    expect(json.verdict.counts).toMatchObject({ P0: 0, P1: 1 });

    // The probe ran in a disposable copy: the checkout is the head, clean, with no probe file, and
    // nothing was pushed.
    const workspace = path.join(root, 'workspaces', 'github', 'acme', 'calc', 'pr-7');
    expect(runGit(workspace, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(runGit(workspace, ['status', '--porcelain', '--ignored'])).toBe('');
    expect(existsSync(path.join(workspace, 'probe'))).toBe(false);
    expect(runGit(workspace, ['show', 'HEAD:src/sum.mjs'])).toContain('a - b');
    expect(await revParse(bare.github, 'feature')).toBe(head);
    expect(github.gitRequests.some((r) => r.service === 'git-receive-pack')).toBe(false);
  });
});
