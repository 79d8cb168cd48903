/**
 * End to end: `reviewbot stats gitlab:acme/shop` (the built CLI) after real reviews were posted on
 * the fake GitLab, with the eval fixture's repository as the project: a finding whose code changed
 * is addressed (the next review resolved its discussion), one an allowed user gave a thumbs-down is
 * dismissed, one a person resolved is resolved, one left open on a merged merge request is open at
 * merge.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeOpenAI, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { commitToBranch, createBareRepo, runGit } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { EVAL_FIXTURE_DIR, LLM_KEY, SEEDED_PRS } from './eval-fixture.js';

const GITLAB_TOKEN = 'glpat-statsE2eTokenThatMustNeverLeak0042';
const PROJECT = 'acme/shop';

/** The next review's comments (all P2: also what a finding without a severity is). */
let nextComments: Array<{ path: string; line: number; body: string; severity: string }> = [];

function review(): ScriptedReply {
  return { toolCalls: [{ name: 'submit_review', input: { summary: 'Reviewed.', comments: nextComments } }] };
}

describe('reviewbot stats on GitLab', () => {
  let root: string;
  let gitlab: FakeGitLab;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-stats-gitlab-'));
    const work = path.join(root, 'made');
    execFileSync('bash', [path.join(EVAL_FIXTURE_DIR, 'make-repo.sh'), work], { stdio: 'ignore' });
    const bare = createBareRepo(path.join(root, 'repos'), PROJECT);
    runGit(work, ['push', '--quiet', bare, 'main', 'seeded-1', 'seeded-2']);
    gitlab = await startFakeGitLab({ token: GITLAB_TOKEN, username: 'reviewbot-gl' });
    for (const pr of SEEDED_PRS.slice(0, 2)) {
      await gitlab.addMergeRequest({
        project: PROJECT,
        iid: pr.number,
        bareRepoPath: bare,
        sourceBranch: pr.branch,
        targetBranch: 'main',
        title: pr.title,
      });
    }
    llm = await startFakeOpenAI({ apiKey: LLM_KEY, script: review });
    env = {
      GITLAB_TOKEN,
      GITLAB_URL: gitlab.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      AGENT_PROVIDER: 'openai',
      OPENAI_API_KEY: LLM_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
      AGENT_MODEL: 'test-model',
      ALLOWED_USERS: 'alice',
      REVIEW_PROGRESS: 'off',
      HOME: root,
    };
    const reviewWith = async (iid: number, comments: typeof nextComments) => {
      nextComments = comments;
      const result = await runCli(['review', `${PROJECT}#${iid}`, '--platform', 'gitlab'], env, 120_000);
      expect(result.stderr).not.toMatch(/reviewbot: /);
      expect(result.code).toBe(0);
    };
    await reviewWith(1, [
      { path: 'src/cart.ts', line: 16, body: 'The loop goes one past the end.', severity: 'P2' },
      { path: 'src/cart.ts', line: 19, body: 'The discount is inverted.', severity: 'P2' },
    ]);
    await reviewWith(2, [
      { path: 'src/session.ts', line: 13, body: 'The expiry check is inverted.', severity: 'P2' },
      { path: 'src/session.ts', line: 12, body: 'Name this constant.', severity: 'P2' },
    ]);
    const noteAt = (file: string, line: number) =>
      gitlab.diffNotes.find(
        (n) => n.author === 'reviewbot-gl' && n.position?.new_path === file && n.position.new_line === line,
      )!;
    // Alice (an allowed user) dismisses the discount finding; Carol resolves the constant's thread.
    gitlab.awardEmoji(noteAt('src/cart.ts', 19).id, 'thumbsdown', 'alice');
    gitlab.resolveDiscussion(noteAt('src/session.ts', 12).discussion_id, 'carol');
    // The loop is fixed; the next review resolves its discussion (addressed).
    const fixed = readFileSync(
      path.join(EVAL_FIXTURE_DIR, 'repo', 'seeded-1', 'src', 'cart.ts'),
      'utf8',
    ).replace('i <= items.length', 'i < items.length');
    commitToBranch(bare, {
      branch: 'seeded-1',
      message: 'Fix the loop bound',
      changes: { write: { 'src/cart.ts': fixed } },
    });
    await reviewWith(1, []);
    // !2 is merged with its expiry finding still open.
    gitlab.setMergeRequestState(PROJECT, 2, 'merged');
  }, 400_000);
  afterAll(async () => {
    await llm?.close();
    await gitlab?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('--json counts posted, addressed, dismissed, resolved and open-at-merge findings', async () => {
    const resolved = gitlab.discussions
      .filter((d) => d.notes[0]?.author === 'reviewbot-gl' && d.notes[0].type === 'DiffNote')
      .map((d) => [d.notes[0]!.position?.new_path, d.notes[0]!.position?.new_line, d.resolved]);
    expect(resolved).toEqual([
      ['src/cart.ts', 16, true],
      ['src/cart.ts', 19, false],
      ['src/session.ts', 13, false],
      ['src/session.ts', 12, true],
    ]);
    const result = await runCli(['stats', `gitlab:${PROJECT}`, '--json'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ repo: `gitlab:${PROJECT}`, pullRequests: 2, truncated: false });
    expect(report.bySeverity.P2).toEqual({
      posted: 4,
      addressed: 1,
      dismissed: 1,
      resolved: 1,
      openAtMerge: 1,
    });
    expect(report.actedOnRate).toBe(0.5);
    const listing = gitlab.requests.filter((r) => r.path.endsWith('/merge_requests'));
    expect(listing.map((r) => r.query.state)).toEqual(['all']);
    expect(gitlab.violations).toEqual([]);
  });

  it('reads only merge requests updated since --since', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const result = await runCli(['stats', `gitlab:${PROJECT}`, '--since', tomorrow, '--json'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ pullRequests: 0, actedOnRate: null });
  });
});
