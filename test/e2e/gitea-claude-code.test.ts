/**
 * End to end on Gitea/Forgejo with the default agent runner: the built CLI (no AGENT_PROVIDER)
 * reviews pull request `acme/widgets#7` on the fake Gitea (every request checked against Gitea
 * 1.22's swagger), and the real Claude Code binary — started by the Agent SDK — talks to the fake
 * Anthropic Messages API, reads and greps the checkout, and delivers its review through
 * `submit_review`; reviewbot posts it as one COMMENT review with inline comments.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { filesContaining, LLM_KEY, reviewLines, reviewScript } from './cli-fixture.js';

const GITEA_TOKEN = 'gitea-e2e-claude-code-token-never-leak-01';
const BOT = 'reviewbot-gitea';
const REPO = 'acme/widgets';

/** Agent-loop requests get `turns` in order, then a closing text; side requests get text. */
function routed(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) =>
    request.toolNames.length === 0 ? { text: 'side' } : (turns[next++] ?? { text: 'Review submitted.' });
}

describe('reviewbot review on Gitea with the default Claude Code runner', () => {
  let root: string;
  let baseDir: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-cc-'));
    baseDir = path.join(root, 'workspaces');
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    gitea = await startFakeGitea({ token: GITEA_TOKEN, username: BOT });
    gitea.addPullRequest({
      repo: REPO,
      index: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      GITEA_TOKEN,
      GITEA_URL: gitea.url,
      WORKSPACE_BASE_DIR: baseDir,
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      AGENT_MODEL: 'claude-sonnet-4-6',
      HOME: root,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the agent reads the Gitea checkout and its review is posted with inline comments and progress', async () => {
    llm.setScript(routed(reviewScript(scenario)));
    const result = await runCli(['review', `${REPO}#7`, '--platform', 'gitea'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/→ Grep/);

    const loop = llm.requests.filter((r) => r.toolNames.length > 0);
    expect(loop[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    // The Read and Grep results carried the file from the clone of the Gitea repository.
    expect(loop[1]?.toolResults.map((r) => r.content).join('\n')).toContain('export const v3 = 300;');

    const lines = reviewLines(scenario);
    expect(gitea.reviews).toHaveLength(1);
    const review = gitea.reviews[0]!;
    expect(review).toMatchObject({ state: 'COMMENT', author: BOT, commitId: scenario.headSha });
    expect(review.body).toContain('The constants change looks deliberate');
    expect(gitea.codeComments.map((c) => [c.path, c.line])).toEqual([
      [lines.right.path, lines.right.line],
      [lines.left.path, -lines.left.line],
      [lines.range.path, lines.range.line],
    ]);
    expect(gitea.statuses.map((s) => s.state)).toEqual(['pending', 'success']);
    expect(gitea.violations).toEqual([]);

    for (const text of [result.stdout, result.stderr, ...llm.requests.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toContain(GITEA_TOKEN);
      expect(text).not.toContain(LLM_KEY);
    }
    // Workspaces and the agent's own HOME/config (session transcripts) alike.
    expect(filesContaining(baseDir, GITEA_TOKEN)).toEqual([]);
    expect(filesContaining(baseDir, LLM_KEY)).toEqual([]);
  });
});
