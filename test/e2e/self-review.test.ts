/**
 * The main job on real input: a review of a pull request made from this repository's own git
 * history (base = an older commit, head = HEAD), served by the fake GitHub, with a scripted model,
 * printed as a user sees it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { gitEnv } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'ghp_selfReviewToken0000000000000000';
const KEY = 'sk-self-review-key-000000';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv(), encoding: 'utf8' }).trim();
}

/** First added line of the first text file in the pull request, read from the fake's files API. */
async function firstAddedLine(github: FakeGitHub): Promise<{ path: string; line: number }> {
  const res = await fetch(`${github.url}/repos/acme/reviewbot/pulls/1/files?per_page=100`, {
    headers: { authorization: `token ${TOKEN}` },
  });
  const files = (await res.json()) as Array<{ filename: string; patch?: string }>;
  for (const file of files) {
    if (!file.patch) continue;
    let newLine = 0;
    for (const text of file.patch.split('\n')) {
      const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
      if (header) newLine = Number(header[1]);
      else if (text.startsWith('+')) return { path: file.filename, line: newLine };
      else if (!text.startsWith('-') && !text.startsWith('\\')) newLine += 1;
    }
  }
  throw new Error('the pull request has no added line');
}

describe('self review of this repository', () => {
  let root: string;
  let github: FakeGitHub;
  let llm: FakeLlm;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-self-'));
    const bare = path.join(root, 'repos', 'acme', 'reviewbot.git');
    git(root, ['clone', '--quiet', '--bare', '--no-local', projectRoot, bare]);
    const head = git(bare, ['rev-parse', 'HEAD']);
    let base: string;
    try {
      base = git(bare, ['rev-parse', '--verify', '--quiet', 'HEAD~3^{commit}']);
    } catch {
      // A shallow or short history: review everything against an empty base commit.
      const emptyTree = git(bare, ['hash-object', '-t', 'tree', '-w', '--stdin']);
      base = git(bare, ['commit-tree', emptyTree, '-m', 'empty base']);
    }
    git(bare, ['update-ref', 'refs/heads/self-base', base]);
    git(bare, ['update-ref', 'refs/heads/self-head', head]);
    github = await startFakeGitHub({ token: TOKEN });
    await github.addPullRequest({
      owner: 'acme',
      repo: 'reviewbot',
      number: 1,
      bareRepoPath: bare,
      base: 'self-base',
      head: 'self-head',
      title: 'Self review',
    });
    llm = await startFakeAnthropic({ apiKey: KEY });
  });
  afterAll(async () => {
    await llm?.close();
    await github?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reviews the pull request and prints it', async () => {
    const target = await firstAddedLine(github);
    llm.setScript([
      { toolCalls: [{ name: 'Read', input: { file_path: 'package.json', limit: 20 } }] },
      {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'Reviewed the latest commits of reviewbot itself.',
              comments: [
                { path: target.path, line: target.line, side: 'RIGHT', body: 'Worth a second look.' },
              ],
            },
          },
        ],
      },
    ]);
    const result = await runCli(['review', 'acme/reviewbot#1', '--dry-run'], {
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: github.url,
      WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      HOME: root,
      AGENT_PROVIDER: 'anthropic',
      AGENT_MODEL: 'claude-sonnet-5-5',
      // One agent run whatever the size of the last commits (the script answers one run).
      REVIEW_MAX_DIFF_TOKENS: '100000000',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: llm.url,
    });
    if (result.code !== 0) process.stderr.write(result.stderr);
    // Shown in the test output: the review exactly as a user sees it.
    process.stdout.write(`\n${result.stdout}\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Review of acme/reviewbot#1 "Self review"');
    expect(result.stdout).toContain(`${target.path}:${target.line} (RIGHT)`);
    expect(result.stdout).toContain('Not posted (--dry-run).');
    // The model saw the real diff and read a real file of the checkout.
    expect(llm.requests[0]!.messages.map((m) => m.text).join('\n')).toContain(target.path);
    expect(llm.requests[1]!.toolResults[0]!.content).toContain('"name": "reviewbot"');
    expect(github.writeRequests()).toEqual([]);
    expect(github.violations).toEqual([]);
  });
});
