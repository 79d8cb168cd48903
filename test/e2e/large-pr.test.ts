/**
 * End to end (CONTRACT §15): the built CLI reviews a pull request of real shape — 3,000 files with
 * a 40,000-line lock file, generated code, a vendored tree, minified bundles, binaries and 1,500
 * source files — against the fake GitHub (OpenAPI-validated, 3,000-file listing cap, pagination)
 * and a scripted model on the fake Anthropic API (which accounts prompt caching). The prompts
 * together show every reviewable hunk exactly once and no skipped file; one review is posted; the
 * receipt is exact (the synthesis call that writes its one summary included). Then the cost cap
 * stops the runs and the review is still posted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm, type RecordedLlmRequest } from '../support/fake-llm/index.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { commitToBranch } from '../support/git-fixtures.js';
import { createLargePr, HEAD_ATTRIBUTES_LINE, type LargePr } from '../support/large-pr.js';
import { runCli } from '../support/run-cli.js';

const TOKEN = 'ghp_largePrTokenThatMustNeverLeak012345';
const KEY = 'sk-large-pr-llm-key-0123456789';
/** `agent.pricing` of the test, USD per million tokens. */
const PRICES = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };

interface Receipt {
  model: string;
  agentRuns: number;
  turns: number;
  toolCalls: number;
  tokens: { input: number; cacheWrite: number; cacheRead: number; output: number };
  costUsd: number | null;
  files: { reviewed: number; skipped: Array<{ path: string; reason: string }>; notReviewed: string[] };
  capped?: boolean;
}

/** What the scripted model answers the synthesis call (no tools, §18). */
const SYNTHESIS = 'One summary of the whole pull request: services added, one naming problem.';

/**
 * The scripted model: one submit_review per part's run, commenting on a source file of the part and
 * on the lock file; text for the synthesis call that writes the review's one summary (no tools).
 */
function reviewer(request: RecordedLlmRequest) {
  if (request.toolNames.length === 0) return { text: SYNTHESIS };
  const prompt = request.messages[0]?.text ?? '';
  const source = /=== (src\/\S+) \(added/.exec(prompt)?.[1];
  return {
    toolCalls: [
      {
        name: 'submit_review',
        input: {
          summary: `Looked at ${source ?? 'this part'}.`,
          comments: [
            ...(source
              ? [{ path: source, line: 1, side: 'RIGHT', body: `Name this constant in ${source}.` }]
              : []),
            { path: 'package-lock.json', line: 1, body: 'LOCK-FILE-NOTE must never be posted' },
          ],
        },
      },
    ],
  };
}

/** Every `mk_…`/`base_…` marker in `text`, counted into `counts`. */
function countMarkers(text: string, counts: Map<string, number>): void {
  for (const match of text.matchAll(/\b(?:mk|base)_\w+/g))
    counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
}

describe('reviewbot review of a 3,000-file pull request', () => {
  let root: string;
  let pr: LargePr;
  let github: FakeGitHub;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-large-pr-'));
    pr = createLargePr(path.join(root, 'repos'));
    github = await startFakeGitHub({ token: TOKEN, login: 'reviewbot-test' });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'monorepo',
      number: 7,
      bareRepoPath: pr.bareRepoPath,
      base: 'main',
      head: 'feature',
      title: 'Regenerate the client and add the services',
      body: 'A large change.',
    });
    llm = await startFakeAnthropic({ apiKey: KEY });
    const configFile = path.join(root, 'reviewbot.yaml');
    writeFileSync(
      configFile,
      [
        'agent:',
        '  pricing:',
        `    input_per_mtok: ${PRICES.input}`,
        `    output_per_mtok: ${PRICES.output}`,
        `    cache_write_per_mtok: ${PRICES.cacheWrite}`,
        `    cache_read_per_mtok: ${PRICES.cacheRead}`,
        '',
      ].join('\n'),
    );
    env = {
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: github.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: llm.url,
      REVIEWBOT_CONFIG: configFile,
      HOME: root,
    };
  }, 120_000);

  afterAll(async () => {
    await llm?.close();
    await github?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('shows every reviewable hunk exactly once, no skipped file, posts one review with an exact receipt', async () => {
    llm.setScript(reviewer);
    const result = await runCli(['review', 'acme/monorepo#7', '--json'], env, 180_000);
    expect(result.stderr).not.toMatch(/reviewbot: (?!warning)/);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as {
      posted: boolean;
      receipt: Receipt;
      findings: Array<{ path: string }>;
    };
    expect(out.posted).toBe(true);

    // Prompts: every marker of a reviewable line exactly once, nothing of a skipped file.
    const requests = llm.requests;
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const counts = new Map<string, number>();
    let attributesShown = 0;
    for (const request of requests) {
      const text = request.messages.map((m) => m.text).join('\n');
      countMarkers(text, counts);
      attributesShown += text.split(HEAD_ATTRIBUTES_LINE).length - 1;
      expect(JSON.stringify(request.body)).not.toContain('skip_');
      expect(text).not.toContain('package-lock.json');
      expect(text).not.toContain('third_party/');
    }
    expect(attributesShown).toBe(1);
    const missing = [...pr.reviewMarkers].filter((m) => counts.get(m) === undefined);
    const repeated = [...counts].filter(([, n]) => n !== 1);
    const unknown = [...counts.keys()].filter((m) => !pr.reviewMarkers.has(m));
    expect({ missing: missing.length, repeated, unknown }).toEqual({ missing: 0, repeated: [], unknown: [] });

    // One review; nothing on a skipped file, inline or in the body.
    expect(github.reviews).toHaveLength(1);
    const review = github.reviews[0]!;
    // One voice (§18): the body opens with the one summary; no part numbering reaches it.
    expect(review.body?.startsWith(SYNTHESIS)).toBe(true);
    expect(review.body).not.toMatch(/Part \d+ of \d+/);
    expect(review.body).not.toContain('Looked at ');
    const synthesis = requests.filter((r) => r.toolNames.length === 0);
    expect(synthesis).toHaveLength(1);
    expect(synthesis[0]!.messages[0]!.text).toMatch(/<untrusted-data-[0-9a-f]{12} kind="review-notes">/);
    expect(review.body).toContain('<details>');
    expect(review.body).toContain('Review receipt');
    expect(review.body).not.toContain('LOCK-FILE-NOTE');
    expect(github.reviewComments.some((c) => c.path === 'package-lock.json')).toBe(false);
    expect(out.findings.length).toBeGreaterThan(0);
    expect(github.violations).toEqual([]);

    // The receipt, exactly.
    const { receipt } = out;
    const expectedSkipped = [...pr.expected].filter(([, reason]) => reason !== undefined);
    expect(new Map(receipt.files.skipped.map((s) => [s.path, s.reason]))).toEqual(new Map(expectedSkipped));
    expect(receipt.files.skipped).toHaveLength(531);
    expect(receipt.files.reviewed).toBe(3000 - 531);
    expect(receipt.files.notReviewed).toEqual([]);
    expect(receipt.model).toBe('claude-sonnet-4-5');
    expect(receipt.agentRuns).toBe(requests.length);
    expect(receipt.agentRuns).toBeGreaterThan(1);
    expect(receipt.turns).toBe(requests.length);
    // Every part's run calls submit_review once; the synthesis call has no tools.
    expect(receipt.toolCalls).toBe(requests.length - 1);
    const sum = (pick: (u: NonNullable<RecordedLlmRequest['usage']>) => number): number =>
      requests.reduce((total, r) => total + pick(r.usage!), 0);
    const tokens = {
      input: sum((u) => u.inputTokens),
      cacheWrite: sum((u) => u.cacheWriteTokens ?? 0),
      cacheRead: sum((u) => u.cacheReadTokens ?? 0),
      output: sum((u) => u.outputTokens),
    };
    expect(receipt.tokens).toEqual(tokens);
    const cost =
      (tokens.input * PRICES.input +
        tokens.cacheWrite * PRICES.cacheWrite +
        tokens.cacheRead * PRICES.cacheRead +
        tokens.output * PRICES.output) /
      1e6;
    expect(receipt.costUsd).toBeCloseTo(cost, 6);
    expect(receipt.capped).toBeUndefined();
  }, 240_000);

  it('stops the runs at review.max_cost_usd and still posts what was found', async () => {
    const CAP = 0.6;
    llm.requests.length = 0;
    // Each run reads the source before answering: a second turn that would pass the cap.
    llm.setScript((request, index) =>
      request.toolResults.length === 0 && index < 1
        ? { toolCalls: [{ name: 'Read', input: { file_path: 'src/m00/service0.ts', limit: 3 } }] }
        : reviewer(request),
    );
    const postedBefore = github.reviews.length + github.issueComments.length;
    const result = await runCli(
      ['review', 'acme/monorepo#7', '--json'],
      { ...env, REVIEW_MAX_COST_USD: String(CAP) },
      180_000,
    );
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { posted: boolean; receipt: Receipt; body: string };
    expect(out.posted).toBe(true);
    expect(out.receipt.capped).toBe(true);
    expect(out.receipt.costUsd).toBeGreaterThan(0);
    // A hard cap: what was spent (calls cut off in flight at their estimate) never passes it.
    expect(out.receipt.costUsd).toBeLessThanOrEqual(CAP);
    // Each call is priced at its worst before it is sent (a part's ~60k-token prompt written to the
    // cache plus 16,384 output tokens ≈ $0.47): one fits under the cap, a second one never does.
    expect(llm.requests.length).toBeLessThanOrEqual(2);
    expect(out.receipt.agentRuns).toBeLessThanOrEqual(2);
    expect(out.receipt.files.notReviewed.length).toBeGreaterThan(0);
    expect(out.body).toContain('Stopped at the cost cap');
    // Posted once (as a review, or as a comment when no finding is inline), with the notice.
    expect(github.reviews.length + github.issueComments.length).toBe(postedBefore + 1);
    const posted = [
      ...github.reviews.map((r) => r.body ?? ''),
      ...github.issueComments.map((c) => c.body ?? ''),
    ];
    expect(posted.some((body) => body.includes('Stopped at the cost cap'))).toBe(true);
    expect(github.violations).toEqual([]);
  }, 240_000);

  it('runs no agent when every changed file is skipped, and says so', async () => {
    commitToBranch(pr.bareRepoPath, {
      branch: 'bump-lock',
      from: 'main',
      message: 'bump the lock file',
      changes: {
        write: { 'yarn.lock': 'skip_yarn 1\n', 'assets/logo.png': Buffer.from([0x89, 0, 1, 2, 0, 3]) },
      },
    });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'monorepo',
      number: 8,
      bareRepoPath: pr.bareRepoPath,
      base: 'main',
      head: 'bump-lock',
      title: 'Bump the lock file',
    });
    llm.requests.length = 0;
    const result = await runCli(['review', 'acme/monorepo#8', '--json', '--dry-run'], env, 120_000);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { summary: string; receipt: Receipt };
    expect(llm.requests).toHaveLength(0);
    expect(out.summary).toBe('Nothing to review: all 2 changed files were skipped (see the receipt).');
    expect(out.receipt.agentRuns).toBe(0);
    expect(out.receipt.files).toEqual({
      reviewed: 0,
      skipped: [
        { path: 'assets/logo.png', reason: 'binary' },
        { path: 'yarn.lock', reason: 'lock file' },
      ],
      notReviewed: [],
    });
  }, 240_000);
});
