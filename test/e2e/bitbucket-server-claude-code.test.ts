/**
 * End to end on Bitbucket Data Center with the default agent runner (no AGENT_PROVIDER): the real
 * Claude Code binary — started by the Agent SDK — talks to the fake Anthropic Messages API, against
 * the fake Bitbucket Data Center. The built CLI's review reads and greps the checkout and is posted
 * as anchored comments, the summary and the build status; then a signed WORKER mention to
 * `reviewbot serve` edits a file, pushes the commit with the token as a Bearer header, its Bash sees
 * neither the token nor the header, and the reply lands in the mention's thread. One fixture for
 * both.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBitbucketServer,
  type FakeBitbucketServer,
} from '../support/fake-bitbucket-server/index.js';
import { commentHook, sendBitbucketServerWebhook } from '../support/fake-bitbucket-server/webhooks.js';
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

const TOKEN = 'bbs-e2e-claude-code-token-never-leak-0123';
const SECRET = 'bbs-hook-secret-claude-code-0123456789';
const REPO = 'ACME/widgets';
const BOT = 'reviewbot-dc';
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

describe('Bitbucket Data Center with the default Claude Code runner', () => {
  let root: string;
  let baseDir: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  let llm: FakeLlm;
  let server: ServeProcess;
  let env: NodeJS.ProcessEnv;
  const loop = () => llm.requests.filter((r) => r.toolNames.length > 0);

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bbs-cc-'));
    baseDir = path.join(root, 'workspaces');
    scenario = createDiffScenario(path.join(root, 'repos'), REPO);
    bb = await startFakeBitbucketServer({ token: TOKEN, username: BOT });
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
      BITBUCKET_SERVER_TOKEN: TOKEN,
      BITBUCKET_SERVER_URL: bb.url,
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
      BITBUCKET_SERVER_WEBHOOK_SECRET: SECRET,
      ALLOWED_USERS: 'alice',
      CLEANUP_INTERVAL_HOURS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reviewbot review: the agent reads the Data Center checkout, its findings are posted as anchored comments with the summary and status', async () => {
    llm.setScript(routed(reviewScript(scenario)));
    const result = await runCli(['review', `${REPO}#7`, '--platform', 'bitbucket-server'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/→ Grep/);

    expect(loop()[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    // The Read and Grep results carried the file from the clone of the Data Center repository.
    expect(
      loop()[1]
        ?.toolResults.map((r) => r.content)
        .join('\n'),
    ).toContain('export const v3 = 300;');

    const lines = reviewLines(scenario);
    const comments = bb.comments(REPO, 7);
    expect(comments.filter((c) => c.anchor).map((c) => c.anchor?.path)).toEqual([
      lines.right.path,
      lines.left.path,
      lines.range.path,
    ]);
    expect(comments.at(-1)?.text).toContain('The constants change looks deliberate');
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

  it('serve, a WORKER mention: Edit changes a file, the commit is pushed with the Bearer header, Bash sees no token, the reply lands in the thread', async () => {
    llm.requests.length = 0;
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    const file = path.join(baseDir, 'bitbucket-server', 'ACME', 'widgets', 'pr-7', 'src', 'service.ts');
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
    const stored = bb.addComment(REPO, 7, { text: `@${WORKER} bump v3 to 302`, author: 'alice' });
    const pr = {
      repo: REPO,
      id: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: before,
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
    };
    const res = await sendBitbucketServerWebhook(
      `${server.url}/webhooks/bitbucket-server`,
      'pr:comment:added',
      commentHook(pr, { id: stored.id, text: stored.text, author: 'alice' }),
      { secret: SECRET },
    );
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const reply = await waitFor(
      () => bb.comments(REPO, 7).find((c) => c.text.includes('Bumped v3 to 302 with Claude Code.')),
      45_000,
      'worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 302;',
    );
    expect(reply).toMatchObject({ author: BOT, parentId: stored.id });
    expect(reply.text).toContain(after.slice(0, 7));
    const envOutput = loop()[2]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const secret of [TOKEN, LLM_KEY, SECRET]) expect(envOutput).not.toContain(secret);
    expect(envOutput).not.toMatch(/^BITBUCKET_SERVER_(TOKEN|WEBHOOK_SECRET)=/m);
    // Data Center's git accepts the token only as a Bearer header: an authorized push carried it.
    const pushes = bb.gitRequests.filter((r) => r.service === 'git-receive-pack');
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((r) => r.authorized)).toBe(true);
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN);
    expect(bb.violations).toEqual([]);
  });
});
