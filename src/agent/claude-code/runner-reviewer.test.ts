/**
 * The Claude Code runner with the real binary against the fake Anthropic API: a REVIEWER run that
 * reads and greps before answering with the review JSON, the `submit_review` tool, the tools offered
 * and the workspace confinement of paths.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseReviewOutput } from '../../review/parse-output.js';
import type { AgentEvent } from '../types.js';
import {
  createRunnerFixture,
  everythingSent,
  KEY,
  loopRequests,
  makeRunner,
  routeTurns,
  runOptions,
  SECRET_BESIDE,
  type RunnerFixture,
} from './runner-fixture.test-helper.js';

const REVIEW = {
  summary: 'The subtraction in `add` is a bug.',
  comments: [
    { path: 'src/a.ts', line: 3, side: 'RIGHT', body: '`add` subtracts.', suggestion: '  return x + y;' },
  ],
};

describe('Claude Code runner, REVIEWER', () => {
  let fixture: RunnerFixture;
  beforeAll(async () => {
    fixture = await createRunnerFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });
  afterEach(() => {
    fixture.llm.requests.length = 0;
  });

  it('reads and greps, then answers with review JSON that the review parser accepts', async () => {
    fixture.llm.setScript(
      routeTurns([
        {
          text: 'Let me look at the file.',
          toolCalls: [
            { name: 'Read', input: { file_path: 'src/a.ts' } },
            { name: 'Grep', input: { pattern: 'return x', output_mode: 'content' } },
          ],
        },
        { text: `Here is my review:\n${JSON.stringify(REVIEW)}` },
      ]),
    );
    const events: AgentEvent[] = [];
    const result = await makeRunner(fixture).run(runOptions(fixture, events));

    const parsed = parseReviewOutput(result.submitted ?? result.text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.output.summary).toBe(REVIEW.summary);
      expect(parsed.output.comments).toEqual([
        {
          path: 'src/a.ts',
          line: 3,
          side: 'RIGHT',
          body: '`add` subtracts.',
          suggestion: '  return x + y;',
          severity: 'P2',
          confidence: null,
        },
      ]);
    }
    expect(result.submitted).toBeUndefined();
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.model).toBe('claude-sonnet-4-5');
    expect(result.turns).toBe(2);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.messages).toEqual([
      { role: 'user', content: 'Review src/a.ts' },
      { role: 'assistant', content: result.text },
    ]);

    // The tool results the model got hold the file and the grep hit.
    const [first, second] = loopRequests(fixture.llm);
    expect(first?.system).toContain('You are reviewbot, a careful code reviewer.');
    expect(first?.messages.at(-1)?.text).toContain('Review src/a.ts');
    expect(first?.model).toBe('claude-sonnet-4-5');
    const results = Object.fromEntries((second?.toolResults ?? []).map((r) => [r.toolName, r]));
    expect(results.Read?.content).toContain('return x - y;');
    expect(results.Read?.isError).toBe(false);
    expect(results.Grep?.content).toContain('return x - y;');

    // Progress events: two turns, the calls, their results, the texts and the usage.
    const kinds = events.map((e) =>
      e.type === 'tool_call' || e.type === 'tool_result' ? `${e.type}:${e.tool}` : e.type,
    );
    expect(kinds.filter((k) => k === 'turn')).toHaveLength(2);
    expect(kinds).toEqual(
      expect.arrayContaining(['tool_call:Read', 'tool_call:Grep', 'tool_result:Read', 'tool_result:Grep']),
    );
    expect(events).toContainEqual({ type: 'text', text: 'Let me look at the file.' });
    expect(events.at(-1)).toEqual({ type: 'usage', usage: result.usage, aggregate: true });
    expect(result.usageAggregate).toBe(true);
  });

  it('offers only Read, Glob, Grep and submit_review — no write, shell or web tool', async () => {
    fixture.llm.setScript(routeTurns([{ text: JSON.stringify(REVIEW) }]));
    await makeRunner(fixture).run(runOptions(fixture, []));
    const [request] = loopRequests(fixture.llm);
    expect([...(request?.toolNames ?? [])].sort()).toEqual([
      'Glob',
      'Grep',
      'Read',
      'mcp__reviewbot__submit_review',
    ]);
  });

  it('runs a call without tools in one turn (the synthesis of a multi-part review, §18)', async () => {
    const system = 'You write the one summary of a review.';
    const answer = 'One summary of the whole pull request.';
    fixture.llm.setScript((request) =>
      request.system.includes(system) ? { text: answer } : { text: 'Side answer' },
    );
    const result = await makeRunner(fixture).run(
      runOptions(fixture, [], { systemPrompt: system, prompt: 'Summarize.', tools: [], maxTurns: 1 }),
    );
    const calls = fixture.llm.requests.filter((r) => r.system.includes(system));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.toolNames).toEqual([]);
    expect(result.text).toBe(answer);
    expect(result.turns).toBe(1);
    expect(result.costUsd).toBeGreaterThanOrEqual(0);
  });

  it('authenticates with CLAUDE_CODE_OAUTH_TOKEN as a bearer token when no API key is set', async () => {
    fixture.llm.setScript(routeTurns([{ text: JSON.stringify(REVIEW) }]));
    const runner = makeRunner(fixture, {
      env: { PATH: process.env.PATH, CLAUDE_CODE_OAUTH_TOKEN: KEY, ANTHROPIC_BASE_URL: fixture.llm.url },
    });
    const result = await runner.run(runOptions(fixture, []));
    expect(result.text).toBe(JSON.stringify(REVIEW));
    const [request] = loopRequests(fixture.llm);
    expect(request?.headers.authorization).toBe('[redacted]');
    expect(request?.headers['x-api-key']).toBeUndefined();
  });

  it('takes the review from the submit_review tool when the model calls it', async () => {
    fixture.llm.setScript(
      routeTurns([
        { toolCalls: [{ name: 'mcp__reviewbot__submit_review', input: REVIEW }] },
        { text: 'Submitted.' },
      ]),
    );
    const events: AgentEvent[] = [];
    const result = await makeRunner(fixture).run(runOptions(fixture, events));
    expect(result.submitted).toEqual(REVIEW);
    const parsed = parseReviewOutput(result.submitted);
    expect(parsed.ok).toBe(true);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_result', tool: 'submit_review', isError: false }),
    );
  });

  it('routes a call of plain submit_review to the tool', async () => {
    fixture.llm.setScript(
      routeTurns([{ toolCalls: [{ name: 'submit_review', input: REVIEW }] }, { text: 'Done.' }]),
    );
    const result = await makeRunner(fixture).run(runOptions(fixture, []));
    expect(result.submitted).toEqual(REVIEW);
  });

  it('refuses paths outside the workspace and under .git, and write tools, with tool errors', async () => {
    fixture.llm.setScript(
      routeTurns([
        {
          toolCalls: [
            { name: 'Read', input: { file_path: '../secret.txt' } },
            { name: 'Read', input: { file_path: `${fixture.baseDir}/acme/widgets/secret.txt` } },
            { name: 'Read', input: { file_path: '.git/config' } },
            { name: 'Grep', input: { pattern: 'TOPSECRET', path: '..' } },
            { name: 'Glob', input: { pattern: '../*.txt' } },
            { name: 'Write', input: { file_path: 'src/b.ts', content: 'x' } },
          ],
        },
        { text: JSON.stringify(REVIEW) },
      ]),
    );
    await makeRunner(fixture).run(runOptions(fixture, []));
    const second = loopRequests(fixture.llm)[1];
    expect(second?.toolResults).toHaveLength(6);
    for (const toolResult of second?.toolResults ?? []) expect(toolResult.isError).toBe(true);
    expect(everythingSent(fixture.llm)).not.toContain(SECRET_BESIDE);
  });
});
