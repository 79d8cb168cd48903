/**
 * End to end on Azure DevOps with the default agent runner (no AGENT_PROVIDER): the real Claude Code
 * binary — started by the Agent SDK — talks to the fake Anthropic Messages API, against the fake
 * Azure DevOps. The built CLI's review reads and greps the checkout and is posted as threads, the
 * summary thread and the pull request status; then a WORKER mention delivered to `reviewbot serve`
 * as a service hook edits a file, pushes the commit with the PAT in a header, its Bash sees neither
 * the token nor the header, and the reply lands in the mention's thread. One fixture for both.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAzureDevOps } from '../support/fake-azure-devops/index.js';
import type { FakeLlm, RecordedLlmRequest, ScriptedReply } from '../support/fake-llm/index.js';
import type { DiffScenario } from '../support/git-fixtures.js';
import { runCli } from '../support/run-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import {
  bareGit,
  BOT,
  createAzureDevOpsFixture,
  HOOK_SECRET,
  PROJECT,
  REPO,
  WORKER,
  type AzureDevOpsFixture,
} from './azure-devops-fixture.js';
import { filesContaining, LLM_KEY, reviewLines, reviewScript } from './cli-fixture.js';
import { waitFor } from './serve-fixture.js';

const TOKEN = 'ado-e2e-claude-code-pat-never-leak-0123';
/** The header value git sends: a leak of it is a leak of the token. */
const HEADER = Buffer.from(`:${TOKEN}`).toString('base64');

/** Agent-loop requests get `turns` in order, then a closing text; side requests get text. */
function routed(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) =>
    request.toolNames.length === 0 ? { text: 'side' } : (turns[next++] ?? { text: 'Done.' });
}

describe('Azure DevOps with the default Claude Code runner', () => {
  let fx: AzureDevOpsFixture;
  let baseDir: string;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  let llm: FakeLlm;
  let server: ServeProcess;
  let env: NodeJS.ProcessEnv;
  const loop = () => llm.requests.filter((r) => r.toolNames.length > 0);

  beforeAll(async () => {
    fx = await createAzureDevOpsFixture({
      prefix: 'reviewbot-ado-cc-',
      token: TOKEN,
      fake: { botUniqueName: BOT },
    });
    ({ baseDir, scenario, ado, llm } = fx);
    const agent = { AGENT_MODEL: 'claude-sonnet-4-6' };
    env = { ...fx.env, REVIEWER_BOT_USERNAME: BOT, WORKER_BOT_USERNAME: WORKER, ...agent };
    server = await startServe({ ...fx.serveEnv, ...agent, CLEANUP_INTERVAL_HOURS: '0' });
  });
  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it('reviewbot review: the agent reads the Azure DevOps checkout, its findings are posted as threads with the summary and status', async () => {
    llm.setScript(routed(reviewScript(scenario)));
    const result = await runCli(['review', `${PROJECT}/${REPO}#7`, '--platform', 'azure-devops'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/→ Grep/);

    expect(loop()[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    // The Read and Grep results carried the file from the clone of the Azure Repos repository.
    expect(
      loop()[1]
        ?.toolResults.map((r) => r.content)
        .join('\n'),
    ).toContain('export const v3 = 300;');

    const lines = reviewLines(scenario);
    const threads = ado.threads(PROJECT, REPO, 7);
    expect(threads.filter((t) => t.threadContext).map((t) => t.threadContext?.filePath)).toEqual([
      `/${lines.right.path}`,
      `/${lines.left.path}`,
      `/${lines.range.path}`,
    ]);
    const summary = threads.at(-1)!;
    expect(summary.threadContext).toBeUndefined();
    expect(summary.comments[0]?.content).toContain('The constants change looks deliberate');
    expect(threads.every((t) => t.comments[0]?.author === BOT)).toBe(true);
    expect(ado.statuses(PROJECT, REPO, 7).map((s) => s.state)).toEqual(['pending', 'succeeded']);
    expect(ado.violations).toEqual([]);

    for (const text of [result.stdout, result.stderr, ...llm.requests.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(HEADER);
      expect(text).not.toContain(LLM_KEY);
    }
    // Workspaces and the agent's own HOME/config (session transcripts) alike.
    for (const secret of [TOKEN, HEADER, LLM_KEY]) expect(filesContaining(baseDir, secret)).toEqual([]);
  });

  it('serve, a WORKER mention: Edit changes a file, the commit is pushed with the header credential, Bash sees no token, the reply lands in the thread', async () => {
    llm.requests.length = 0;
    const before = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    const file = path.join(baseDir, 'azure-devops', PROJECT, REPO, 'pr-7', 'src', 'service.ts');
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
    const content = `@${WORKER} bump v3 to 302`;
    const { thread, event } = await fx.mention(content);
    const res = await fx.deliver(server, event);
    expect(res).toMatchObject({ status: 200, json: { status: 'accepted' } });
    const reply = await waitFor(
      () => thread.comments.find((c) => c.content.includes('Bumped v3 to 302 with Claude Code.')),
      45_000,
      'worker reply in the thread',
    );
    const after = await bareGit(scenario.bareRepoPath, ['rev-parse', `refs/heads/${scenario.head}`]);
    expect(await bareGit(scenario.bareRepoPath, ['rev-parse', `${after}^`])).toBe(before);
    expect(await bareGit(scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 302;',
    );
    expect(reply.author).toBe(BOT);
    expect(reply.parentCommentId).toBe(1);
    expect(reply.content).toContain(after.slice(0, 7));
    const envOutput = loop()[2]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const secret of [TOKEN, HEADER, LLM_KEY, HOOK_SECRET]) expect(envOutput).not.toContain(secret);
    expect(envOutput).not.toMatch(/^AZURE_DEVOPS_(TOKEN|WEBHOOK_USER|WEBHOOK_SECRET)=/m);
    // The push carried the PAT in the Authorization header up front (never challenged).
    const pushes = ado.gitRequests.filter((r) => r.service === 'git-receive-pack');
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((r) => r.authorized && r.preemptive)).toBe(true);
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN);
    expect(ado.violations).toEqual([]);
  });
});
