/**
 * End to end: `reviewbot stats github:acme/shop` (the built CLI) after real reviews were posted on
 * the fake GitHub: a finding whose code changed is addressed (the next review resolved its thread),
 * one an allowed user gave a thumbs-down is dismissed, one left open on a merged pull request is open
 * at merge.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { commitToBranch } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import {
  createEvalFixture,
  EVAL_FIXTURE_DIR,
  GITHUB_TOKEN,
  LLM_KEY,
  type EvalFixture,
} from './eval-fixture.js';

/** The next review's comments (P2: also what a finding without a severity is). */
let nextComments: Array<{ path: string; line: number; body: string; severity: string }> = [];

function review(): ScriptedReply {
  return { toolCalls: [{ name: 'submit_review', input: { summary: 'Reviewed.', comments: nextComments } }] };
}

describe('reviewbot stats on GitHub', () => {
  let fx: EvalFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createEvalFixture();
    llm = await startFakeOpenAI({ apiKey: LLM_KEY, script: review });
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: path.join(fx.root, 'workspaces'),
      AGENT_PROVIDER: 'openai',
      OPENAI_API_KEY: LLM_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
      AGENT_MODEL: 'test-model',
      ALLOWED_USERS: 'alice',
      REVIEW_PROGRESS: 'off',
      HOME: fx.root,
    };
    const reviewWith = async (ref: string, comments: typeof nextComments) => {
      nextComments = comments;
      const result = await runCli(['review', ref], env, 120_000);
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
    };
    await reviewWith('acme/shop#1', [
      { path: 'src/cart.ts', line: 16, body: 'The loop goes one past the end.', severity: 'P2' },
      { path: 'src/cart.ts', line: 19, body: 'The discount is inverted.', severity: 'P2' },
    ]);
    await reviewWith('acme/shop#2', [
      { path: 'src/session.ts', line: 13, body: 'The expiry check is inverted.', severity: 'P2' },
    ]);
    // Alice (an allowed user) dismisses the discount finding.
    const discount = fx.github.reviewComments.find((c) => c.path === 'src/cart.ts' && c.line === 19)!;
    fx.github.addReaction({
      subject: 'review_comment',
      commentId: discount.id,
      content: '-1',
      user: 'alice',
    });
    // The loop is fixed; the next review resolves its thread (addressed).
    const fixed = readFileSync(
      path.join(EVAL_FIXTURE_DIR, 'repo', 'seeded-1', 'src', 'cart.ts'),
      'utf8',
    ).replace('i <= items.length', 'i < items.length');
    commitToBranch(fx.bare, {
      branch: 'seeded-1',
      message: 'Fix the loop bound',
      changes: { write: { 'src/cart.ts': fixed } },
    });
    await reviewWith('acme/shop#1', []);
    // #2 is merged with its finding still open.
    fx.github.setPullRequestState('acme', 'shop', 2, 'merged');
  }, 400_000);
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('--json counts posted, addressed, dismissed and open-at-merge findings per severity', async () => {
    const threads = fx.github.reviewThreads.filter((t) => t.author === 'reviewbot-test');
    expect(threads.map((t) => [t.path, t.resolved])).toEqual([
      ['src/cart.ts', true],
      ['src/cart.ts', false],
      ['src/session.ts', false],
    ]);
    const result = await runCli(['stats', 'github:acme/shop', '--json'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ repo: 'github:acme/shop', pullRequests: 3, truncated: false });
    expect(report.bySeverity).toEqual({
      P0: { posted: 0, addressed: 0, dismissed: 0, resolved: 0, openAtMerge: 0 },
      P1: { posted: 0, addressed: 0, dismissed: 0, resolved: 0, openAtMerge: 0 },
      P2: { posted: 3, addressed: 1, dismissed: 1, resolved: 0, openAtMerge: 1 },
      P3: { posted: 0, addressed: 0, dismissed: 0, resolved: 0, openAtMerge: 0 },
    });
    expect(report.actedOnRate).toBe(0.3333);
    expect(Date.now() - Date.parse(report.since)).toBeGreaterThan(29 * 86_400_000);
    expect(fx.github.violations).toEqual([]);
  });

  it('stops at --max-prs and says so; the table names the acted-on rate', async () => {
    const result = await runCli(['stats', 'github:acme/shop', '--max-prs', '1'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stopped at 1 pull requests (--max-prs)');
    expect(result.stdout).toContain('Findings of github:acme/shop on 1 pull requests updated since');
    expect(result.stdout).toMatch(
      /^severity\s+posted\s+addressed\s+dismissed\s+resolved\s+open at merge\s+acted on$/m,
    );
  });

  it.each([
    [['stats', 'acme/shop'], /expected <platform>:<owner>\/<repo>/],
    [['stats', 'github:acme/shop', '--since', 'last week'], /--since expects a date/],
    [['stats', 'github:acme/shop', '--max-prs', '0'], /--max-prs expects a whole number/],
  ])('exits 2 on bad usage: %j', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
