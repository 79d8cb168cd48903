/**
 * End to end on Bitbucket Cloud with the default agent runner (no AGENT_PROVIDER): the real Claude
 * Code binary — started by the Agent SDK — talks to the fake Anthropic Messages API, against the
 * fake Bitbucket Cloud (every request checked against Atlassian's OpenAPI description). The built
 * CLI's review reads and greps the checkout and is posted as inline comments and a summary; then a
 * signed WORKER mention to `reviewbot serve` edits a file, pushes the commit as `x-token-auth`, its
 * Bash sees no token, and the reply follows in the conversation. One fixture for both.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from '../support/fake-bitbucket-cloud/index.js';
import { commentHook, sendBitbucketWebhook } from '../support/fake-bitbucket-cloud/webhooks.js';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { filesContaining, LLM_KEY, reviewLines, reviewScript } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'bb-e2e-claude-code-token-never-leak-0123';
const HOOK_SECRET = 'bb-hook-secret-claude-code-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot-bb';
const REVIEWER = 'rb-reviewer';
const WORKER = 'rb-worker';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

/** Agent-loop requests get `turns` in order, then a closing text; side requests get text. */
function routed(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) =>
    request.toolNames.length === 0 ? { text: 'side' } : (turns[next++] ?? { text: 'Done.' });
}

describe('Bitbucket Cloud with the default Claude Code runner', () => {
  let root: string;
  let baseDir: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketCloud;
  let llm: FakeLlm;
  let server: ServeProcess;
  let env: NodeJS.ProcessEnv;
  const loop = () => llm.requests.filter((r) => r.toolNames.length > 0);

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bb-cc-'));
    baseDir = path.join(root, 'workspaces');
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketCloud({ token: TOKEN, nickname: BOT });
    bb.addPullRequest({
      repo: REPO,
      id: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'Tune the service constants',
    });
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      BITBUCKET_TOKEN: TOKEN,
      BITBUCKET_API_URL: bb.apiUrl,
      REVIEWER_BOT_USERNAME: REVIEWER,
      WORKER_BOT_USERNAME: WORKER,
      WORKSPACE_BASE_DIR: baseDir,
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      AGENT_MODEL: 'claude-sonnet-4-6',
      HOME: root,
    };
    server = await startServe({
      ...env,
      BITBUCKET_WEBHOOK_SECRET: HOOK_SECRET,
      ALLOWED_USERS: '557058:alice',
      CLEANUP_INTERVAL_HOURS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reviewbot review: the agent reads the Bitbucket checkout, its findings are posted inline with the summary and progress', async () => {
    llm.setScript(routed(reviewScript(scenario)));
    const result = await runCli(['review', `${REPO}#7`, '--platform', 'bitbucket'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/→ Grep/);

    expect(loop()[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    // The Read and Grep results carried the file from the clone of the Bitbucket repository.
    expect(
      loop()[1]
        ?.toolResults.map((r) => r.content)
        .join('\n'),
    ).toContain('export const v3 = 300;');

    const lines = reviewLines(scenario);
    const comments = bb.comments(REPO, 7);
    expect(comments.filter((c) => c.inline).map((c) => c.inline)).toEqual([
      { path: lines.right.path, to: lines.right.line },
      { path: lines.left.path, from: lines.left.line },
      { path: lines.range.path, to: lines.range.line, start_to: lines.range.startLine },
    ]);
    expect(comments.at(-1)?.raw).toContain('The constants change looks deliberate');
    expect(comments.every((c) => c.author === BOT)).toBe(true);
    expect(bb.statuses.map((s) => s.state)).toEqual(['INPROGRESS', 'SUCCESSFUL']);
    expect(bb.violations).toEqual([]);

    for (const text of [result.stdout, result.stderr, ...llm.requests.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(LLM_KEY);
    }
    // Workspaces and the agent's own HOME/config (session transcripts) alike.
    expect(filesContaining(baseDir, TOKEN)).toEqual([]);
    expect(filesContaining(baseDir, LLM_KEY)).toEqual([]);
  });

  it('serve, a WORKER mention: Edit changes a file, the commit is pushed as x-token-auth, Bash sees no token, the reply follows', async () => {
    llm.requests.length = 0;
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    const file = path.join(baseDir, 'bitbucket', 'acme', 'widgets', 'pr-7', 'src', 'service.ts');
    llm.setScript(
      routed([
        {
          toolCalls: [
            {
              name: 'Edit',
              input: {
                file_path: file,
                old_string: 'export const v3 = 300;',
                new_string: 'export const v3 = 302;',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'Bash', input: { command: 'env' } }] },
        { text: 'Bumped v3 to 302 with Claude Code.' },
      ]),
    );
    const stored = bb.addComment(REPO, 7, { raw: `@${WORKER} bump v3 to 302`, author: 'alice' });
    const pr = {
      repo: REPO,
      id: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: before,
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
    };
    const res = await sendBitbucketWebhook(
      `${server.url}/webhooks/bitbucket`,
      'pullrequest:comment_created',
      commentHook(pr, { id: stored.id, raw: stored.raw, author: 'alice' }),
      { secret: HOOK_SECRET },
    );
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const reply = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.raw.includes('Bumped v3 to 302 with Claude Code.')),
      45_000,
      'worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 302;',
    );
    expect(reply.author).toBe(BOT);
    expect(reply.raw).toContain(after.slice(0, 7));
    const envOutput = loop()[2]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const secret of [TOKEN, LLM_KEY, HOOK_SECRET]) expect(envOutput).not.toContain(secret);
    expect(envOutput).not.toMatch(/^BITBUCKET_(TOKEN|WEBHOOK_SECRET)=/m);
    const pushes = bb.gitRequests.filter((r) => r.authorized && r.service === 'git-receive-pack');
    expect(pushes.length).toBeGreaterThan(0);
    expect(new Set(pushes.map((r) => r.username))).toEqual(new Set(['x-token-auth']));
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN);
    expect(bb.violations).toEqual([]);
  });
});
