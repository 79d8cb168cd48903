/**
 * End to end: `reviewbot serve` with the default agent runner (no AGENT_PROVIDER), the real Claude
 * Code binary against the fake Anthropic API, webhooks from the fake GitHub. A REVIEWER mention is
 * reviewed read-only; a WORKER mention edits a file whose commit is pushed, and its Bash sees no
 * platform token; a second mention continues the conversation; an API error ends in a reply.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedLlmRequest, ScriptedReply } from '../support/fake-llm/index.js';
import { gitEnv } from '../support/git-fixtures.js';
import { GITHUB_TOKEN, LLM_KEY } from './cli-fixture.js';
import {
  createServeFixture,
  postComment,
  requestText,
  REVIEWER,
  waitFor,
  WEBHOOK_SECRET,
  WORKER,
  type ServeFixture,
} from './serve-fixture.js';

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

describe('reviewbot serve with the default Claude Code runner', () => {
  let fx: ServeFixture;
  const loop = () => fx.llm.requests.filter((r) => r.toolNames.length > 0);

  beforeAll(async () => {
    fx = await createServeFixture({ AGENT_PROVIDER: undefined, AGENT_MODEL: 'claude-sonnet-4-6' });
  });
  afterAll(async () => {
    await fx?.closeAll();
  });
  afterEach(() => {
    fx.llm.requests.length = 0;
  });

  it('a REVIEWER mention: the agent reads and greps read-only, and its review is posted', async () => {
    fx.llm.setScript(
      routed([
        {
          toolCalls: [
            { name: 'Read', input: { file_path: 'src/service.ts' } },
            { name: 'Grep', input: { pattern: 'v3', output_mode: 'content' } },
          ],
        },
        { text: JSON.stringify({ summary: 'Reviewed by Claude Code: v3 is now 300.', comments: [] }) },
      ]),
    );
    const res = await postComment(fx, 7, `@${REVIEWER} please review`);
    expect(res.json).toMatchObject({ status: 'accepted' });
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Reviewed by Claude Code: v3 is now 300.')),
      45_000,
      'review reply',
    );
    const requests = loop();
    expect(requests[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    expect(requests[0]?.model).toBe('claude-sonnet-4-6');
    expect(requestText(requests[0]!)).toContain('please review');
    expect(requests[1]?.toolResults.map((r) => r.content).join('\n')).toContain('export const v3 = 300;');
  });

  it('a WORKER mention: Edit changes a file, the commit is pushed, Bash sees no token', async () => {
    const before = await bareGit(fx.scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    const file = path.join(fx.baseDir, 'github', 'acme', 'widgets', 'pr-7', 'src', 'service.ts');
    fx.llm.setScript(
      routed([
        { toolCalls: [{ name: 'Read', input: { file_path: file } }] },
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
    await postComment(fx, 7, `@${WORKER} bump v3 to 302`);
    const reply = await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Bumped v3 to 302 with Claude Code.')),
      45_000,
      'worker reply',
    );
    const after = await bareGit(fx.scenario.bareRepoPath, ['rev-parse', 'refs/heads/feature']);
    expect(after).not.toBe(before);
    expect(await bareGit(fx.scenario.bareRepoPath, ['show', `${after}:src/service.ts`])).toContain(
      'export const v3 = 302;',
    );
    expect(reply.body).toContain(after.slice(0, 7));

    const requests = loop();
    expect(requests[0]?.toolNames.sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
    const envOutput = requests[3]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const secret of [GITHUB_TOKEN, LLM_KEY, WEBHOOK_SECRET]) expect(envOutput).not.toContain(secret);
    expect(envOutput).not.toMatch(/^(CODEHOST_TOKEN|GITHUB_TOKEN|CODEHOST_WEBHOOK_SECRET|STORE_URL)=/m);
  });

  it('a second mention continues the conversation: the request carries the first exchange', async () => {
    fx.llm.setScript(
      routed([
        { text: JSON.stringify({ summary: 'First answer: the parser is fine.', comments: [] }) },
        { text: JSON.stringify({ summary: 'Second answer: v3 changed.', comments: [] }) },
      ]),
    );
    await postComment(fx, 8, `@${REVIEWER} what about the parser?`);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('First answer: the parser is fine.')),
      45_000,
      'first',
    );
    await postComment(fx, 8, `@${REVIEWER} and did v3 change?`);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Second answer: v3 changed.')),
      45_000,
      'second',
    );
    const second = requestText(loop().at(-1)!);
    expect(second).toContain('what about the parser?');
    expect(second).toContain('First answer: the parser is fine.');
    expect(second).toContain('and did v3 change?');
  });

  it('an API error from the model ends in a reply on the pull request, not a hang', async () => {
    fx.llm.setScript((request) =>
      request.toolNames.length === 0
        ? { text: 'side' }
        : {
            error: {
              status: 400,
              body: {
                type: 'error',
                error: { type: 'invalid_request_error', message: 'Your request was malformed' },
              },
            },
          },
    );
    await postComment(fx, 7, `@${REVIEWER} review again`);
    const reply = await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Your request was malformed')),
      45_000,
      'failure reply',
    );
    expect(reply.body).toMatch(/API Error: 400/);
    expect(reply.body).not.toContain(LLM_KEY);
    expect(fx.server.stdout()).not.toContain(LLM_KEY);
    expect(fx.server.stdout()).not.toContain(GITHUB_TOKEN);
  });
});
