/**
 * End to end on Gitea/Forgejo: `reviewbot serve` with the default agent runner (no AGENT_PROVIDER),
 * the real Claude Code binary against the fake Anthropic API, signed webhooks as Gitea sends them,
 * the fake Gitea checking every request against its swagger. A REVIEWER mention is reviewed
 * read-only and posted with its finding inline; a WORKER mention edits a file whose commit is
 * pushed, its Bash sees no platform token, and it replies in the conversation.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitea, type FakeGitea } from '../support/fake-gitea/index.js';
import { sendGiteaWebhook } from '../support/fake-gitea/send-webhook.js';
import { pullRequestCommentHook, type GiteaHookContext } from '../support/fake-gitea/webhook-payloads.js';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../support/fake-llm/index.js';
import { createDiffScenario, gitEnv, type DiffScenario } from '../support/git-fixtures.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { LLM_KEY, reviewLines } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const GITEA_TOKEN = 'gitea-e2e-cc-serve-token-never-leak-0123';
const HOOK_SECRET = 'gitea-hook-secret-cc-serve-0123456789';
const REPO = 'acme/widgets';
const BOT = 'reviewbot.gitea';
const REVIEWER = 'rb.reviewer';
const WORKER = 'rb_worker';

const run = promisify(execFile);
async function bareGit(bare: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [`--git-dir=${bare}`, ...args], { env: gitEnv() });
  return stdout.trim();
}

/** Agent-loop requests get `turns` in order (then a closing text); side requests get text. */
function routed(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) =>
    request.toolNames.length === 0 ? { text: 'side' } : (turns[next++] ?? { text: 'Done.' });
}

describe('reviewbot serve on Gitea with the default Claude Code runner', () => {
  let root: string;
  let baseDir: string;
  let scenario: DiffScenario;
  let gitea: FakeGitea;
  let llm: FakeLlm;
  let server: ServeProcess;
  let ctx: GiteaHookContext;
  const loop = () => llm.requests.filter((r) => r.toolNames.length > 0);

  /** Adds a comment by alice on #7 and delivers its signed webhook. */
  async function comment(body: string): Promise<void> {
    const stored = gitea.addComment(REPO, 7, 'alice', body);
    const pr = {
      number: 7,
      title: 'Tune the service constants',
      headBranch: scenario.head,
      headSha: await gitea.headSha(REPO, 7),
      baseBranch: scenario.base,
      baseSha: scenario.baseSha,
      author: 'alice',
    };
    const hook = pullRequestCommentHook(ctx, pr, stored);
    const res = await sendGiteaWebhook(`${server.url}/webhooks/gitea`, hook.names, hook.payload, {
      secret: HOOK_SECRET,
    });
    expect(res.json).toEqual({ status: 'accepted' });
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-gitea-cc-serve-'));
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
    ctx = { baseUrl: gitea.url, owner: 'acme', repo: 'widgets', sender: 'alice' };
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    server = await startServe({
      GITEA_TOKEN,
      GITEA_URL: gitea.url,
      GITEA_WEBHOOK_SECRET: HOOK_SECRET,
      REVIEWER_BOT_USERNAME: REVIEWER,
      WORKER_BOT_USERNAME: WORKER,
      ALLOWED_USERS: 'alice',
      AGENT_MODEL: 'claude-sonnet-4-6',
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: baseDir,
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await llm?.close();
    await gitea?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  afterEach(() => {
    llm.requests.length = 0;
  });

  it('a REVIEWER mention: the agent reads read-only, and its review is posted with the finding inline', async () => {
    const right = reviewLines(scenario).right;
    llm.setScript(
      routed([
        { toolCalls: [{ name: 'Read', input: { file_path: 'src/service.ts' } }] },
        {
          toolCalls: [
            {
              name: 'mcp__reviewbot__submit_review',
              input: {
                summary: 'Claude Code looked at the constants.',
                comments: [
                  { path: right.path, line: right.line, side: 'RIGHT', body: 'Name this constant.' },
                ],
              },
            },
          ],
        },
      ]),
    );
    await comment(`@${REVIEWER} please review`);
    const review = await waitFor(
      () => gitea.reviews.find((r) => r.body.includes('Claude Code looked at the constants.')),
      45_000,
      'the review',
    );
    expect(review).toMatchObject({ state: 'COMMENT', author: BOT, commitId: scenario.headSha });
    const inline = gitea.codeComments.filter((c) => c.reviewId === review.id);
    expect(inline.map((c) => [c.path, c.line])).toEqual([[right.path, right.line]]);
    expect(loop()[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    expect(gitea.violations).toEqual([]);
  });

  it('a WORKER mention: Edit changes a file, the commit is pushed, Bash sees no token, the reply follows', async () => {
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    const file = path.join(baseDir, 'gitea', 'acme', 'widgets', 'pr-7', 'src', 'service.ts');
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
    await comment(`@${WORKER} bump v3 to 302`);
    const reply = await waitFor(
      () => gitea.comments.find((c) => c.body.includes('Bumped v3 to 302 with Claude Code.')),
      45_000,
      'worker reply',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 302;',
    );
    expect(reply).toMatchObject({ author: BOT });
    expect(reply.body).toContain(after.slice(0, 7));
    const envOutput = loop()[2]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const secret of [GITEA_TOKEN, LLM_KEY, HOOK_SECRET]) expect(envOutput).not.toContain(secret);
    expect(envOutput).not.toMatch(/^(GITEA_TOKEN|GITEA_WEBHOOK_SECRET)=/m);
    expect(gitea.gitRequests.some((r) => r.service === 'git-receive-pack' && r.username === BOT)).toBe(true);
    expect(gitea.violations).toEqual([]);
  });
});
