import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from '../../test/support/fake-llm/index.js';
import { createApiRunner, EMPTY_PROMPT_STAND_IN } from './api-runner.js';
import { REVIEWER_TOOLS, WORKER_TOOLS } from './tools/index.js';
import type { AgentEvent, AgentRunOptions } from './types.js';

const KEY = 'test-key-0123456789';
const SYSTEM = 'You are a careful code reviewer.';

const fakes = [
  ['anthropic', startFakeAnthropic],
  ['openai', startFakeOpenAI],
] as const;

describe.each(fakes)('API runner against the fake %s API', (provider, startFake) => {
  let fake: FakeLlm;
  let base: string;
  let workspace: string;

  beforeAll(async () => {
    fake = await startFake({ apiKey: KEY });
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'api-runner-test-')));
    workspace = path.join(base, 'ws');
    execFileSync('git', ['init', '-q', workspace]);
    mkdirSync(path.join(workspace, 'src'));
    writeFileSync(
      path.join(workspace, 'src', 'a.ts'),
      'export const a = 1;\nexport function add(x, y) {\n  return x - y;\n}\n',
    );
    writeFileSync(path.join(base, 'secret.txt'), 'TOPSECRET-CONTENT\n');
  });

  afterAll(async () => {
    await fake.close();
    rmSync(base, { recursive: true, force: true });
  });

  afterEach(() => {
    fake.requests.length = 0;
  });

  function runner() {
    return createApiRunner({
      provider,
      model: 'model-x',
      baseUrl: `${fake.url}/v1`,
      env: { [`${provider.toUpperCase()}_API_KEY`]: KEY },
    });
  }

  function options(overrides: Partial<AgentRunOptions> = {}): AgentRunOptions {
    return {
      workspaceDir: workspace,
      systemPrompt: SYSTEM,
      prompt: 'Review src/a.ts',
      tools: [...REVIEWER_TOOLS],
      maxTurns: 10,
      ...overrides,
    };
  }

  it('reads, greps, then answers; reports events, turns and summed usage', async () => {
    fake.setScript([
      {
        toolCalls: [{ name: 'Read', input: { file_path: 'src/a.ts' } }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        toolCalls: [{ name: 'Grep', input: { pattern: 'x - y' } }],
        usage: { inputTokens: 200, outputTokens: 20 },
      },
      { text: 'add() subtracts instead of adding.', usage: { inputTokens: 300, outputTokens: 30 } },
    ]);
    const events: AgentEvent[] = [];
    const result = await runner().run(options({ onEvent: (event) => events.push(event) }));

    expect(result.text).toBe('add() subtracts instead of adding.');
    expect(result.submitted).toBeUndefined();
    expect(result.turns).toBe(3);
    expect(result.model).toBe('model-x');
    expect(result.usage).toEqual({ inputTokens: 600, outputTokens: 60 });
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.messages).toEqual([
      { role: 'user', content: 'Review src/a.ts' },
      { role: 'assistant', content: 'add() subtracts instead of adding.' },
    ]);

    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]?.system).toBe(SYSTEM);
    expect(fake.requests[0]?.toolNames.sort()).toEqual(['Glob', 'Grep', 'Read', 'submit_review']);
    expect(fake.requests[1]?.toolResults).toEqual([
      expect.objectContaining({
        isError: false,
        content: expect.stringContaining('     3\t  return x - y;'),
      }),
    ]);
    expect(fake.requests[2]?.toolResults[0]?.content).toBe('src/a.ts:3:  return x - y;');

    expect(events.filter((event) => event.type === 'turn')).toEqual([
      { type: 'turn', turn: 1, maxTurns: 10 },
      { type: 'turn', turn: 2, maxTurns: 10 },
      { type: 'turn', turn: 3, maxTurns: 10 },
    ]);
    expect(events).toContainEqual({ type: 'tool_call', tool: 'Read', input: { file_path: 'src/a.ts' } });
    expect(events).toContainEqual({
      type: 'tool_result',
      tool: 'Grep',
      isError: false,
      summary: 'src/a.ts:3:  return x - y;',
    });
    expect(events).toContainEqual({ type: 'text', text: 'add() subtracts instead of adding.' });
    expect(events.at(-1)).toEqual({ type: 'usage', usage: { inputTokens: 600, outputTokens: 60 } });
  });

  it('returns refused tool calls to the model as errors without file content, and goes on', async () => {
    fake.setScript([
      {
        toolCalls: [
          { name: 'Read', input: { file_path: '../secret.txt' } },
          { name: 'Read', input: { file_path: '.git/config' } },
        ],
      },
      { text: 'Could not read those files.' },
    ]);
    const events: AgentEvent[] = [];
    const result = await runner().run(options({ onEvent: (event) => events.push(event) }));

    expect(result.text).toBe('Could not read those files.');
    const results = fake.requests[1]?.toolResults ?? [];
    expect(results).toHaveLength(2);
    expect(results[0]?.content).toMatch(/leaves the workspace/);
    expect(results[1]?.content).toMatch(/\.git is not allowed/);
    for (const toolResult of results) {
      expect(toolResult.content).not.toMatch(/TOPSECRET|repositoryformatversion/);
      // OpenAI's wire format has no error flag; Anthropic's does.
      expect(toolResult.isError).toBe(provider === 'anthropic');
    }
    expect(events.filter((event) => event.type === 'tool_result')).toEqual([
      {
        type: 'tool_result',
        tool: 'Read',
        isError: true,
        summary: expect.stringMatching(/leaves the workspace/),
      },
      {
        type: 'tool_result',
        tool: 'Read',
        isError: true,
        summary: expect.stringMatching(/\.git is not allowed/),
      },
    ]);
  });

  it('refuses tools the run was not given (a REVIEWER cannot write or run commands)', async () => {
    fake.setScript([
      {
        toolCalls: [
          { name: 'Write', input: { file_path: 'planted.txt', content: 'x' } },
          { name: 'Bash', input: { command: 'touch planted-by-bash' } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await runner().run(options());
    expect(result.text).toBe('ok');
    const results = fake.requests[1]?.toolResults ?? [];
    expect(results).toHaveLength(2);
    for (const toolResult of results) expect(toolResult.content).toMatch(/unavailable tool|no such tool/i);
    expect(existsSync(path.join(workspace, 'planted.txt'))).toBe(false);
    expect(existsSync(path.join(workspace, 'planted-by-bash'))).toBe(false);
  });

  it('captures submit_review and stops right after it', async () => {
    const review = {
      summary: 'One bug.',
      comments: [
        { path: 'src/a.ts', line: 3, side: 'RIGHT', body: 'Should add.', suggestion: '  return x + y;' },
      ],
    };
    fake.setScript([
      { toolCalls: [{ name: 'submit_review', input: review }], usage: { inputTokens: 50, outputTokens: 40 } },
    ]);
    const result = await runner().run(options());

    expect(result.submitted).toEqual(review);
    expect(result.turns).toBe(1);
    expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 40 });
    expect(fake.requests).toHaveLength(1);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: JSON.stringify(review) });
  });

  it('lets the model retry a submit_review with invalid arguments', async () => {
    const review = { summary: 'Fine.', comments: [] };
    fake.setScript([
      { toolCalls: [{ name: 'submit_review', input: { comments: 'none' } }] },
      { toolCalls: [{ name: 'submit_review', input: review }] },
    ]);
    const result = await runner().run(options());
    expect(result.submitted).toEqual(review);
    expect(fake.requests[1]?.toolResults[0]?.content).toMatch(/invalid/i);
  });

  it('continues a conversation from history', async () => {
    fake.setScript([{ text: 'Yes, line 3.' }]);
    const history = [
      { role: 'user' as const, content: 'Is there a bug?' },
      { role: 'assistant' as const, content: 'Yes.' },
    ];
    const result = await runner().run(options({ history, prompt: 'Where?' }));
    expect(fake.requests[0]?.messages).toEqual([
      { role: 'user', text: 'Is there a bug?' },
      { role: 'assistant', text: 'Yes.' },
      { role: 'user', text: 'Where?' },
    ]);
    expect(result.messages).toEqual([
      ...history,
      { role: 'user', content: 'Where?' },
      { role: 'assistant', content: 'Yes, line 3.' },
    ]);
  });

  it('sends a stand-in for an empty prompt (lifecycle triggers have none)', async () => {
    fake.setScript([{ text: 'Reviewed.' }]);
    const result = await runner().run(options({ prompt: '', history: [{ role: 'assistant', content: '' }] }));
    expect(fake.requests[0]?.messages).toEqual([{ role: 'user', text: EMPTY_PROMPT_STAND_IN }]);
    expect(result.text).toBe('Reviewed.');
  });

  it('gives Bash no token or key of the parent environment', async () => {
    const planted = {
      GITHUB_TOKEN: 'ghp_planted000000000000000000',
      ANTHROPIC_API_KEY: 'sk-ant-planted-000000000',
    };
    const saved = { ...process.env };
    Object.assign(process.env, planted);
    try {
      fake.setScript([
        { toolCalls: [{ name: 'Bash', input: { command: 'env; echo marker-$((6*7))' } }] },
        { text: 'done' },
      ]);
      const result = await runner().run(options({ tools: [...WORKER_TOOLS] }));
      expect(result.text).toBe('done');
      const output = fake.requests[1]?.toolResults[0]?.content ?? '';
      expect(output).toContain('marker-42');
      expect(output).toMatch(/^HOME=/m);
      for (const [name, value] of Object.entries(planted)) {
        expect(output).not.toContain(name);
        expect(output).not.toContain(value);
      }
    } finally {
      for (const name of Object.keys(planted)) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});
