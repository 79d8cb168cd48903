/**
 * End to end, on both platforms: the model's one `submit_review` call mixes valid findings with a
 * `line` 0, a fractional line, an empty `path` and a `start_line` after `line`. The built CLI posts
 * one review whose inline comments are exactly the valid findings and whose body lists each invalid
 * one with its reason. And when the model never delivers a review but ends its turns with the
 * tool's own answer `Review submitted.`, that text is not what gets posted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import { startFakeAnthropic, type FakeLlm, type ScriptedReply } from '../support/fake-llm/index.js';
import { createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { createCliFixture, GITHUB_TOKEN, LLM_KEY, reviewLines, type CliFixture } from './cli-fixture.js';

const REASONS = [
  ['Line zero finding.', '`line` 0 is not a line number (a whole number from 1)'],
  ['Fractional finding.', '`line` 2.5 is not a line number (a whole number from 1)'],
  ['Pathless finding.', 'it names no file (`path` is empty)'],
  ['Backwards finding.', 'is after `line`'],
] as const;

/** One turn: a `submit_review` with two valid findings and four invalid ones. */
function mixedScript(scenario: DiffScenario): ScriptedReply[] {
  const lines = reviewLines(scenario);
  return [
    {
      toolCalls: [
        {
          name: 'submit_review',
          input: {
            summary: 'Mixed findings ahead.',
            comments: [
              { path: lines.right.path, line: lines.right.line, side: 'RIGHT', body: 'Valid single line.' },
              { path: lines.right.path, line: 0, body: 'Line zero finding.' },
              {
                path: lines.range.path,
                start_line: lines.range.startLine,
                line: lines.range.line,
                body: 'Valid range.',
              },
              { path: lines.right.path, line: 2.5, body: 'Fractional finding.' },
              { path: '', line: lines.right.line, body: 'Pathless finding.' },
              {
                path: lines.range.path,
                start_line: lines.range.line,
                line: lines.range.startLine,
                body: 'Backwards finding.',
              },
            ],
          },
        },
      ],
    },
  ];
}

function expectReasons(body: string | undefined): void {
  expect(body).toContain('Mixed findings ahead.');
  for (const [finding, reason] of REASONS) {
    expect(body).toMatch(new RegExp(`${finding}\\s+_Not placed inline: .*${escape(reason)}`));
  }
  expect(body).not.toMatch(/Review submitted/);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('a bad finding never costs the review: GitHub', () => {
  let fx: CliFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: fx.baseDir,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: fx.root,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('posts the valid findings inline and each invalid one in the body with its reason', async () => {
    llm.setScript(mixedScript(fx.scenario));
    const result = await runCli(['review', 'acme/widgets#7'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(fx.github.reviews).toHaveLength(1);
    expect(fx.github.reviewComments.map((c) => c.body.split('\n')[0])).toEqual([
      '**P2** Valid single line.',
      '**P2** Valid range.',
    ]);
    expectReasons(fx.github.reviews[0]?.body);
    expect(fx.github.violations).toEqual([]);
  });

  it('never posts the tool answer "Review submitted." as the review', async () => {
    const before = fx.github.reviews.length + fx.github.issueComments.length;
    // An unusable call (no summary, comments not a list), then only the tool's answer as text.
    llm.setScript((_request, index) =>
      index === 0
        ? { toolCalls: [{ name: 'submit_review', input: { comments: 'none' } }] }
        : { text: 'Review submitted.' },
    );
    const result = await runCli(['review', 'acme/widgets#7', '--json'], env);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { body: string };
    expect(parsed.body).not.toMatch(/Review submitted/);
    const posted = [...fx.github.reviews.map((r) => r.body), ...fx.github.issueComments.map((c) => c.body)];
    expect(posted.length).toBeGreaterThan(before);
    for (const body of posted) expect(body).not.toMatch(/^\s*Review submitted\.?\s*$/);
  });
});

describe('a bad finding never costs the review: GitLab', () => {
  const token = 'glpat-e2eMixedFindingsToken0123';
  const project = 'acme/platform/widgets';
  let root: string;
  let scenario: DiffScenario;
  let gitlab: FakeGitLab;
  let llm: FakeLlm;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-mixed-gl-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    gitlab = await startFakeGitLab({ token, username: 'reviewbot-gl' });
    await gitlab.addMergeRequest({
      project,
      iid: 7,
      bareRepoPath: scenario.bareRepoPath,
      sourceBranch: scenario.head,
      targetBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  });
  afterAll(async () => {
    await llm?.close();
    await gitlab?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('posts the valid findings as diff discussions and each invalid one in the note with its reason', async () => {
    llm.setScript(mixedScript(scenario));
    const result = await runCli(['review', `${project}#7`, '--platform', 'gitlab'], {
      GITLAB_TOKEN: token,
      GITLAB_URL: gitlab.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'test-model',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      HOME: root,
    });
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(gitlab.violations).toEqual([]);
    expect(gitlab.diffNotes.map((n) => n.body.split('\n')[0])).toEqual([
      '**P2** Valid single line.',
      '**P2** Valid range.',
    ]);
    const summary = gitlab.notes.filter((n) => n.type === null);
    expect(summary).toHaveLength(1);
    expectReasons(summary[0]?.body);
  });
});
