/**
 * End to end: what reaches the pull request when the pull request and the model are hostile. The
 * built CLI reviews, as a GitHub App (so progress is a check run whose summary is Markdown), a pull
 * request that adds a lock file whose path holds blank lines, `</details>`, a team mention and an
 * image; the scripted model answers with mentions in its summary and finding bodies, a suggestion
 * that quotes a mention, and an off-diff finding on a path of its own making.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAppKeyPair, startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { commitToBranch, createDiffScenario, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';

/** A lock file (skipped, so listed in the receipt) whose path tries to leave its code span. */
const HOSTILE_LOCK = 'deps\n\n</details>\n\n@acme/security-team ![img](x.png)\n\nyarn.lock';
/** How the receipt shows it: one code span on one line, line feeds as U+2424. */
const HOSTILE_LOCK_SHOWN = 'deps␤␤</details>␤␤@acme/security-team ![img](x.png)␤␤yarn.lock';
/** A path the model made up: not in the diff, so its finding lands in the review body. */
const MODEL_PATH = 'notes\n\n</details>\n\n![pixel](https://tracker.invalid/p.png) @acme/security-team';
const SUGGESTION = 'export const v3 = "@acme/security-team"; // owner: @{123}';
const J = '\u2060';

/** Lines of `markdown` that are exactly `</details>` (the one the bot writes closes its receipt). */
function closingDetailsLines(markdown: string): number {
  return markdown.split('\n').filter((line) => line.trim() === '</details>').length;
}

describe('posted text stays inert: hostile paths and model mentions (GitHub App)', () => {
  const keys = generateAppKeyPair();
  let root: string;
  let github: FakeGitHub;
  let llm: FakeLlm;
  let scenario: DiffScenario;
  let headSha: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-posted-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    headSha = commitToBranch(scenario.bareRepoPath, {
      branch: 'feature',
      message: 'add a lock file with a hostile name',
      changes: { write: { [HOSTILE_LOCK]: 'lockfileVersion: 1\n' } },
    });
    github = await startFakeGitHub({
      token: 'ghp_unusedPersonalToken000000000000',
      app: { appId: 4242, installationId: 77, slug: 'acme-reviewer', publicKeyPem: keys.publicKeyPem },
    });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 5,
      bareRepoPath: scenario.bareRepoPath,
      base: scenario.base,
      head: scenario.head,
      title: 'Hostile names',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    mkdirSync(path.join(root, 'ws'), { recursive: true });
    env = {
      CODEHOST_APP_ID: '4242',
      CODEHOST_INSTALLATION_ID: '77',
      CODEHOST_APP_PRIVATE_KEY: keys.privateKeyPem,
      CODEHOST_API_URL: github.url,
      WORKSPACE_BASE_DIR: path.join(root, 'ws'),
      HOME: root,
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await github?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('posts no live mention, and no path leaves its code span, in the review and the check run', async () => {
    const lines = reviewLines(scenario);
    llm.setScript([
      {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'Escalate to @{123} and @acme/security-team; `@acme/security-team` owns this.',
              comments: [
                {
                  path: lines.right.path,
                  line: lines.right.line,
                  side: 'RIGHT',
                  body: 'cc @acme/security-team: name this constant (ask admin@example.com).',
                  suggestion: SUGGESTION,
                },
                { path: MODEL_PATH, line: 3, body: 'Also ping @{123} about this file.' },
              ],
            },
          },
        ],
        usage: { inputTokens: 900, outputTokens: 120 },
      },
    ]);
    const result = await runCli(['review', 'acme/widgets#5'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(github.reviews).toHaveLength(1);
    const review = github.reviews[0]!;
    expect(review.commit_id).toBe(headSha);
    const body = review.body ?? '';
    // Soft: on a regression every leak is reported, not only the first.

    // Model mentions are inert (a joiner after `@`), in code they stay as written, e-mail untouched.
    expect
      .soft(body)
      .toContain(`Escalate to @${J}{123} and @${J}acme/security-team; \`@acme/security-team\` owns this.`);
    expect.soft(body).toContain(`Also ping @${J}{123} about this file.`);
    // The model's path is one code span on one line; so is the lock file's in the receipt.
    expect
      .soft(body)
      .toContain(
        '- **P2** `notes␤␤</details>␤␤![pixel](https://tracker.invalid/p.png) @acme/security-team:3` (RIGHT): Also ping',
      );
    expect.soft(body).toContain(`- \`${HOSTILE_LOCK_SHOWN}\` (lock file)`);
    // Only the receipt's own `</details>` closes a block; nothing of a path starts a line.
    expect.soft(closingDetailsLines(body)).toBe(1);
    for (const line of body.split('\n')) expect.soft(line).not.toMatch(/^\s*(?:@|!\[|<\/details>.)/);

    const [inline] = github.reviewComments.filter((c) => c.pull_request_review_id === review.id);
    expect
      .soft(inline?.body)
      .toContain(`cc @${J}acme/security-team: name this constant (ask admin@example.com).`);
    // The suggestion is code: byte-exact, mentions and all.
    expect.soft(inline?.body).toContain(`\`\`\`suggestion\n${SUGGESTION}\n\`\`\``);

    // The check run's summary carries the same receipt, just as inert.
    const run = github.checkRuns[0]!;
    expect.soft(run.conclusion).toBe('neutral');
    expect.soft(run.output.summary).toContain(`- \`${HOSTILE_LOCK_SHOWN}\` (lock file)`);
    expect.soft(closingDetailsLines(run.output.summary ?? '')).toBe(1);
    expect.soft(github.violations).toEqual([]);
  });
});
