/**
 * End to end on Azure DevOps after a second push: pull request `Fabrikam/widgets#7` has two
 * iterations, the second adding a text file of 8 MiB. The built CLI reviews it against the fake
 * Azure DevOps with the scripted model. Its threads compare the latest iteration with itself
 * (`iterationContext` 2 → 2: the left side is the merge base, as the hunks are), so the finding on a
 * removed line is placed — compared 1 → 2 the service would anchor that line in iteration 1's head,
 * where it is unchanged, and refuse it. The big file gets no hunks (over 2 MiB: its download is
 * stopped, not read whole), so it has no inline comment and the receipt lists it as binary, like
 * the scenario's binary file; the review is still posted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import type { FakeLlm } from '../support/fake-llm/index.js';
import { commitToBranch, SCENARIO_PATHS, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { createAzureDevOpsFixture, PROJECT, REPO, type AzureDevOpsFixture } from './azure-devops-fixture.js';
import { reviewLines, reviewScript } from './cli-fixture.js';

const TOKEN = 'ado-e2ePatThatMustNeverLeak0123456789abcdef';
const BIG = 'data/table.txt';
/** 8 MiB of text lines: well over the 2 MiB a file's text is read up to. */
const BIG_TEXT = Array.from(
  { length: 8 * 1024 },
  (_, i) => `row ${String(i).padStart(6, '0')} ${'x'.repeat(1012)}\n`,
).join('');

describe('reviewbot review on Azure DevOps after a second push adding a file over 2 MiB', () => {
  let fx: AzureDevOpsFixture;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createAzureDevOpsFixture({ prefix: 'reviewbot-ado-push2-', token: TOKEN });
    ({ scenario, ado, llm } = fx);
    await ado.pullRequestJson(PROJECT, REPO, 7); // iteration 1: the scenario's head
    commitToBranch(scenario.bareRepoPath, {
      branch: scenario.head,
      message: 'Add the lookup table',
      changes: { write: { [BIG]: BIG_TEXT } },
    });
    env = { ...fx.env, AGENT_PROVIDER: 'anthropic', AGENT_MODEL: 'test-model' };
  });
  afterAll(() => fx?.close());

  it('anchors every finding on iteration 2 → 2, the removed line included, and skips the big file', async () => {
    llm.setScript(reviewScript(scenario));
    const result = await runCli(['review', `${PROJECT}/${REPO}#7`, '--platform', 'azure-devops'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(ado.violations).toEqual([]);
    const lines = reviewLines(scenario);

    // The threads as posted: all accepted, each comparing the latest iteration with itself.
    const posts = ado.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path.endsWith('/threads') &&
        (r.body as { threadContext?: unknown }).threadContext,
    );
    expect(posts.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of posts) {
      expect((r.body as { pullRequestThreadContext: unknown }).pullRequestThreadContext).toMatchObject({
        iterationContext: { firstComparingIteration: 2, secondComparingIteration: 2 },
      });
    }
    const threads = ado.threads(PROJECT, REPO, 7);
    const inline = threads.filter((t) => t.threadContext);
    expect(inline.map((t) => t.threadContext?.filePath)).toEqual([
      `/${lines.right.path}`,
      `/${lines.left.path}`,
      `/${lines.range.path}`,
    ]);
    expect(inline[1]?.threadContext).toMatchObject({ leftFileStart: { line: lines.left.line, offset: 1 } });

    // The review is posted; nothing refused; the big file listed as the binary one is.
    const summary = threads.at(-1)!;
    expect(summary.threadContext).toBeUndefined();
    const body = summary.comments[0]?.content ?? '';
    expect(body).toContain('The constants change looks deliberate');
    expect(body).not.toContain('could not be placed inline');
    expect(body).toContain(`\`${SCENARIO_PATHS.binary}\` (binary)`);
    expect(body).toContain(`\`${BIG}\` (binary)`);
    expect(inline.some((t) => t.threadContext?.filePath === `/${BIG}`)).toBe(false);

    // Its text was not downloaded whole: the reader closed the connection past 2 MiB.
    const bigReads = ado.itemReads.filter((r) => r.path === BIG);
    expect(bigReads.length).toBeGreaterThan(0);
    for (const read of bigReads) {
      expect(read.size).toBe(BIG_TEXT.length);
      expect(read.complete).toBe(false);
      expect(read.sent).toBeLessThan(read.size);
    }
    // The other files were read whole.
    const others = ado.itemReads.filter((r) => r.path !== BIG);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((r) => r.complete)).toBe(true);
  });
});
