/**
 * The eval fixture on the fake GitHub: the seeded-bugs repository of `test/fixtures/eval/`
 * (built by its own `make-repo.sh`, as a user would) as `acme/shop`, with pull requests #1–#3
 * from its `seeded-N` branches, and the scripted reviews and judge answers the e2e tests count by
 * hand.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedLlmRequest, ScriptedReply } from '../support/fake-llm/index.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { createBareRepo, runGit } from '../support/git-fixtures.js';

export const GITHUB_TOKEN = 'ghp_evalTokenThatMustNeverLeak0123456789';
export const LLM_KEY = 'sk-eval-llm-key-that-must-never-leak-42';

/** `test/fixtures/eval/`. */
export const EVAL_FIXTURE_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'eval',
);

/** The pull requests of the fixture: number, head branch and title (the commit's first line). */
export const SEEDED_PRS = [1, 2, 3].map((n) => {
  const message = readFileSync(path.join(EVAL_FIXTURE_DIR, 'repo', `seeded-${n}.message`), 'utf8');
  return { number: n, branch: `seeded-${n}`, title: message.split('\n')[0]! };
});

/** The running fake and its files. */
export interface EvalFixture {
  root: string;
  /** The bare repository the fake serves as `acme/shop`. */
  bare: string;
  github: FakeGitHub;
  close(): Promise<void>;
}

/** Builds the repository with `make-repo.sh`, serves it as `acme/shop` and opens PRs #1–#3. */
export async function createEvalFixture(): Promise<EvalFixture> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-eval-'));
  const work = path.join(root, 'made');
  execFileSync('bash', [path.join(EVAL_FIXTURE_DIR, 'make-repo.sh'), work], { stdio: 'ignore' });
  const bare = createBareRepo(path.join(root, 'repos'), 'acme/shop');
  runGit(work, ['push', '--quiet', bare, 'main', ...SEEDED_PRS.map((pr) => pr.branch)]);
  const github = await startFakeGitHub({ token: GITHUB_TOKEN, login: 'reviewbot-test' });
  for (const pr of SEEDED_PRS) {
    await github.addPullRequest({
      owner: 'acme',
      repo: 'shop',
      number: pr.number,
      bareRepoPath: bare,
      base: 'main',
      head: pr.branch,
      title: pr.title,
    });
  }
  return {
    root,
    bare,
    github,
    async close() {
      await github.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Tokens each scripted review call and each judge call reports. */
export const REVIEW_USAGE = { inputTokens: 1000, outputTokens: 100 };
export const JUDGE_USAGE = { inputTokens: 500, outputTokens: 50 };

/**
 * The scripted model. Reviews (by the pull request's title in the prompt):
 * - #1: F0 the loop past the end (golden G0), F1 a magic number (no golden comment); G1 missed.
 * - #2: F0 the inverted expiry (G0) and F1 the same issue in other words (a duplicate).
 * - #3: no finding at all (an empty review): both golden comments missed, no judge call.
 * Judge answers: #1 through `submit_matches`; #2 as JSON text that matches G0 twice (F0 and F1)
 * and names a finding that does not exist. By hand: TP 2 (#1 G0, #2 G0), FP 2 (#1 F1, #2 F1),
 * FN 3 (#1 G1, #3 G0, #3 G1): precision 2/4, recall 2/5, F1 4/9.
 */
export function evalScript(request: RecordedLlmRequest): ScriptedReply {
  const text = request.messages.map((m) => m.text).join('\n');
  if (request.toolNames.includes('submit_matches')) {
    if (text.includes('one past the end')) {
      return {
        toolCalls: [{ name: 'submit_matches', input: { matches: [{ finding: 0, golden: 0 }] } }],
        usage: JUDGE_USAGE,
      };
    }
    return {
      text: 'Both findings describe G0.\n```json\n{"matches": [{"finding": 0, "golden": 0}, {"finding": 1, "golden": 0}, {"finding": 7, "golden": 0}]}\n```',
      usage: JUDGE_USAGE,
    };
  }
  const comments = text.includes(SEEDED_PRS[0]!.title)
    ? [
        {
          path: 'src/cart.ts',
          line: 16,
          body: 'The loop goes one past the end: `i <= items.length` reads `items[items.length]`.',
          severity: 'P1',
        },
        { path: 'src/cart.ts', line: 19, body: 'Magic number 0.5: name it.', severity: 'P2' },
      ]
    : text.includes(SEEDED_PRS[1]!.title)
      ? [
          {
            path: 'src/session.ts',
            line: 13,
            body: 'Inverted comparison: an expired session is accepted.',
            severity: 'P0',
          },
          {
            path: 'src/session.ts',
            line: 12,
            body: 'Should be `now < session.expiresAt`.',
            severity: 'P2',
          },
        ]
      : [];
  return {
    toolCalls: [{ name: 'submit_review', input: { summary: 'Reviewed.', comments } }],
    usage: REVIEW_USAGE,
  };
}
