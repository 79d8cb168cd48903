/**
 * A bad finding never costs the review, in both agent runners: the model's one `submit_review`
 * call carries valid comments and comments with `line` 0, a fractional line, an empty `path` and a
 * `start_line` after `line`. The call is accepted (no tool error, no second try), every valid
 * comment stays inline and each invalid one lands in the review body with its reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from '../../test/support/fake-llm/index.js';
import type { PullRequestFile } from '../platforms/types.js';
import { buildReviewBody } from '../review/body.js';
import { DiffIndex } from '../diff/diff-index.js';
import { toFileDiffs } from '../diff/diff.js';
import { filterFindings } from '../review/filter.js';
import { parseReviewOutput } from '../review/parse-output.js';
import { createApiRunner } from './api-runner.js';
import type { AgentEvent, AgentRunResult } from './types.js';
import {
  createRunnerFixture,
  loopRequests,
  makeRunner,
  routeTurns,
  runOptions,
  type RunnerFixture,
} from './claude-code/runner-fixture.test-helper.js';

const KEY = 'test-key-0123456789';

/** The workspace file `src/a.ts` as a new file: RIGHT lines 1-4 are on the diff. */
const FILES: PullRequestFile[] = [
  {
    path: 'src/a.ts',
    status: 'added',
    additions: 4,
    deletions: 0,
    patch: '@@ -0,0 +1,4 @@\n+export const a = 1;\n+export function add(x, y) {\n+  return x - y;\n+}',
  },
];

const MIXED = {
  summary: 'The subtraction in `add` is a bug.',
  comments: [
    { path: 'src/a.ts', line: 3, side: 'RIGHT', body: '`add` subtracts.', suggestion: '  return x + y;' },
    { path: 'src/a.ts', line: 0, body: 'Line zero finding.' },
    { path: 'src/a.ts', start_line: 2, line: 4, body: 'The whole function.' },
    { path: 'src/a.ts', line: 2.5, body: 'Fractional finding.' },
    { path: '', line: 1, body: 'Pathless finding.' },
    { path: 'src/a.ts', start_line: 4, line: 1, body: 'Backwards finding.' },
  ],
};

/** What the review pipeline makes of a run: inline bodies and the review body. */
function reviewOf(result: AgentRunResult): { inline: string[]; body: string } {
  const parsed = parseReviewOutput(result.submitted ?? result.text);
  if (!parsed.ok) throw new Error(parsed.error);
  const filtered = filterFindings(parsed.output.comments, DiffIndex.fromFiles(toFileDiffs(FILES)), []);
  return {
    inline: filtered.kept.map((f) => f.body),
    body: buildReviewBody(parsed.output.summary, filtered.rejected),
  };
}

function expectMixedReview(result: AgentRunResult): void {
  const { inline, body } = reviewOf(result);
  expect(inline).toEqual(['`add` subtracts.', 'The whole function.']);
  expect(body).toMatch(/^The subtraction in `add` is a bug\./);
  for (const [finding, reason] of [
    ['Line zero finding.', '`line` 0 is not a line number (a whole number from 1)'],
    ['Fractional finding.', '`line` 2.5 is not a line number (a whole number from 1)'],
    ['Pathless finding.', 'it names no file (`path` is empty)'],
    ['Backwards finding.', '`start_line` 4 is after `line` 1'],
  ]) {
    expect(body).toContain(`${finding}\n\n  _Not placed inline: ${reason}._`);
  }
  expect(body).not.toContain('Review submitted');
}

describe.each([
  ['anthropic', startFakeAnthropic],
  ['openai', startFakeOpenAI],
] as const)('API runner (%s): submit_review with mixed valid and invalid comments', (provider, start) => {
  let fake: FakeLlm;
  let workspace: string;
  beforeAll(async () => {
    fake = await start({ apiKey: KEY });
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'submit-mixed-')));
    execFileSync('git', ['init', '-q', workspace]);
    mkdirSync(path.join(workspace, 'src'));
    writeFileSync(path.join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('accepts the call in one go and loses no finding', async () => {
    fake.setScript([{ toolCalls: [{ name: 'submit_review', input: MIXED }] }, { text: 'Review submitted.' }]);
    const runner = createApiRunner({
      provider,
      model: 'model-x',
      baseUrl: `${fake.url}/v1`,
      env: { [`${provider.toUpperCase()}_API_KEY`]: KEY },
    });
    const result = await runner.run({
      workspaceDir: workspace,
      systemPrompt: 'You review code.',
      prompt: 'Review src/a.ts',
      tools: ['Read', 'Glob', 'Grep', 'submit_review'],
      maxTurns: 10,
    });
    // Accepted: the run stopped right after the call, no tool error went back to the model.
    expect(fake.requests).toHaveLength(1);
    expect((result.submitted as { comments: unknown[] }).comments).toHaveLength(MIXED.comments.length);
    expectMixedReview(result);
  });
});

describe('Claude Code runner: submit_review with mixed valid and invalid comments', () => {
  let fixture: RunnerFixture;
  beforeAll(async () => {
    fixture = await createRunnerFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it('accepts the call in one go, and the closing "Review submitted." is not the review', async () => {
    fixture.llm.setScript(
      routeTurns([
        { toolCalls: [{ name: 'mcp__reviewbot__submit_review', input: MIXED }] },
        { text: 'Review submitted.' },
      ]),
    );
    const events: AgentEvent[] = [];
    const result = await makeRunner(fixture).run(runOptions(fixture, events));
    const loop = loopRequests(fixture.llm);
    expect(loop).toHaveLength(2);
    expect(loop[1]?.toolResults).toEqual([
      expect.objectContaining({ isError: false, content: expect.stringContaining('Review submitted.') }),
    ]);
    expect(result.submitted).toBeDefined();
    expectMixedReview(result);
    // The conversation keeps the review itself, not the echoed tool answer.
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: JSON.stringify(result.submitted) });
  });
});
