/**
 * End to end with the default agent runner: the built CLI (no AGENT_PROVIDER) reviews a pull
 * request on the fake GitHub, and the real Claude Code binary — started by the Agent SDK — talks to
 * the fake Anthropic Messages API. The agent reads and greps, is refused three escapes from the
 * workspace, then delivers its review through `submit_review`.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  type FakeLlm,
  type RecordedLlmRequest,
  type ScriptedReply,
} from '../support/fake-llm/index.js';
import { runCli } from '../support/run-cli.js';
import {
  createCliFixture,
  filesContaining,
  GITHUB_TOKEN,
  LLM_KEY,
  reviewLines,
  reviewScript,
  SECRET_NEXT_TO_WORKSPACE,
  type CliFixture,
} from './cli-fixture.js';

/** Agent-loop requests get `turns` in order, then a closing text; side requests get text. */
function routed(turns: ScriptedReply[]): (request: RecordedLlmRequest) => ScriptedReply {
  let next = 0;
  return (request) =>
    request.toolNames.length === 0 ? { text: 'side' } : (turns[next++] ?? { text: 'Review submitted.' });
}

describe('reviewbot review with the default Claude Code runner', () => {
  let fx: CliFixture;
  let llm: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    fx = await createCliFixture();
    llm = await startFakeAnthropic({ apiKey: LLM_KEY });
    env = {
      CODEHOST_TOKEN: GITHUB_TOKEN,
      CODEHOST_API_URL: fx.github.url,
      WORKSPACE_BASE_DIR: fx.baseDir,
      ANTHROPIC_API_KEY: LLM_KEY,
      ANTHROPIC_BASE_URL: llm.url,
      AGENT_MODEL: 'claude-sonnet-4-6',
      HOME: fx.root,
    };
  });
  afterAll(async () => {
    await llm?.close();
    await fx?.close();
  });

  it('--dry-run --json: the agent reads and greps, escapes are refused, the review is parsed', async () => {
    llm.setScript(routed(reviewScript(fx.scenario)));
    const result = await runCli(
      ['review', 'acme/widgets#7', '--dry-run', '--json', '--prompt', 'focus on constants'],
      env,
    );
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);

    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    const lines = reviewLines(fx.scenario);
    expect(parsed.posted).toBe(false);
    expect(parsed.model).toBe('claude-sonnet-4-6');
    expect(parsed.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parsed.findings).toEqual([
      expect.objectContaining({ path: lines.right.path, line: lines.right.line, side: 'RIGHT' }),
      expect.objectContaining({ path: lines.left.path, line: lines.left.line, side: 'LEFT' }),
      expect.objectContaining({
        path: lines.range.path,
        startLine: lines.range.startLine,
        line: lines.range.line,
      }),
    ]);
    expect(parsed.rejected).toEqual([expect.objectContaining({ body: 'Unrelated: this file lacks tests.' })]);
    expect(result.stderr).toMatch(/agent turn 1\/30/);
    expect(result.stderr).toMatch(/→ Grep/);

    const loop = llm.requests.filter((r) => r.toolNames.length > 0);
    expect(loop[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'mcp__reviewbot__submit_review']);
    const userText = loop[0]?.messages.map((m) => m.text).join('\n') ?? '';
    expect(userText).toContain('focus on constants');
    expect(userText).toMatch(/<untrusted-data-[0-9a-f]+ kind="pull-request">\nTune the service constants/);
    // The Read and Grep results carried the file; the three escapes came back as errors.
    expect(loop[1]?.toolResults.map((r) => r.content).join('\n')).toContain('export const v3 = 300;');
    const escapes = loop[2]?.toolResults ?? [];
    expect(escapes).toHaveLength(3);
    for (const r of escapes) {
      expect(r.isError).toBe(true);
      expect(r.content).not.toContain(SECRET_NEXT_TO_WORKSPACE);
      expect(r.content).not.toMatch(/root:x:0:0/);
    }
    expect(fx.github.writeRequests()).toEqual([]);
  });

  it('posts the review, and no token or key reaches an output line, a request or a file', async () => {
    llm.requests.length = 0;
    llm.setScript(routed(reviewScript(fx.scenario)));
    const result = await runCli(['review', 'acme/widgets#7'], env);
    expect(result.stderr).not.toMatch(/reviewbot: /);
    expect(result.code).toBe(0);
    expect(fx.github.reviews).toHaveLength(1);
    expect(fx.github.reviews[0]?.body).toContain('The constants change looks deliberate');
    expect(fx.github.violations).toEqual([]);

    for (const text of [result.stdout, result.stderr, ...llm.requests.map((r) => JSON.stringify(r.body))]) {
      expect(text).not.toContain(GITHUB_TOKEN);
      expect(text).not.toContain(LLM_KEY);
    }
    // Workspaces and the agent's own HOME/config (session transcripts) alike.
    expect(filesContaining(fx.baseDir, GITHUB_TOKEN)).toEqual([]);
    expect(filesContaining(fx.baseDir, LLM_KEY)).toEqual([]);
    expect(
      filesContaining(path.join(fx.baseDir, '.reviewbot-agent'), 'export const v3').length,
    ).toBeGreaterThan(0);
  });
});
