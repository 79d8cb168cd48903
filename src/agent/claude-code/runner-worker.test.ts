/**
 * The Claude Code runner with the real binary against the fake Anthropic API: a WORKER run that
 * edits a file and runs `env` in Bash (no platform token, store URL or Anthropic key reaches the
 * shell), and multi-turn conversations (resume, and the fall-back when a session cannot be resumed).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../types.js';
import { probeSandbox } from '../sandbox/index.js';
import { AGENT_DIR_NAME } from './environment.js';
import {
  createRunnerFixture,
  KEY,
  loopRequests,
  makeRunner,
  routeTurns,
  runOptions,
  type RunnerFixture,
} from './runner-fixture.test-helper.js';

/** Whether Bash runs in bubblewrap here (CONTRACT §16); where it cannot, Bash is refused instead. */
const SANDBOXED = (await probeSandbox('auto')).kind === 'bwrap';
const WORKER_TOOLS = ['Read', 'Glob', 'Grep', 'Write', 'Edit', 'Bash'] as const;
const PARENT_SECRETS = {
  GITHUB_TOKEN: 'ghp_parentGithubTokenThatMustNotLeak0001',
  CODEHOST_TOKEN: 'ghp_parentCodehostTokenThatMustNotLeak02',
  STORE_URL: 'redis://:storePasswordMustNotLeak@10.0.0.9:6379/0',
};

describe('Claude Code runner, WORKER and sessions', () => {
  let fixture: RunnerFixture;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    fixture = await createRunnerFixture();
    for (const [name, value] of Object.entries(PARENT_SECRETS)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await fixture.close();
  });
  afterEach(() => {
    fixture.llm.requests.length = 0;
  });

  it('edits a file with Edit, and its Bash sees no platform token, store URL or API key', async () => {
    fixture.llm.setScript(
      routeTurns([
        { toolCalls: [{ name: 'Read', input: { file_path: 'src/a.ts' } }] },
        {
          toolCalls: [
            {
              name: 'Edit',
              input: {
                file_path: path.join(fixture.workspace, 'src', 'a.ts'),
                old_string: 'return x - y;',
                new_string: 'return x + y;',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'Bash', input: { command: 'env; echo "HOME=$HOME"' } }] },
        { text: 'Fixed `add`: it now adds.' },
      ]),
    );
    const events: AgentEvent[] = [];
    const runner = makeRunner(fixture, {
      env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fixture.llm.url },
    });
    const result = await runner.run(
      runOptions(fixture, events, { tools: [...WORKER_TOOLS], prompt: 'Fix add' }),
    );

    expect(result.text).toBe('Fixed `add`: it now adds.');
    expect(readFileSync(path.join(fixture.workspace, 'src', 'a.ts'), 'utf8')).toContain('return x + y;');
    // Claude Code left nothing else in the checkout (a WORKER commits whatever git status shows).
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
        cwd: fixture.workspace,
        encoding: 'utf8',
      }),
    ).toBe('?? src/a.ts\n');
    const requests = loopRequests(fixture.llm);
    expect([...(requests[0]?.toolNames ?? [])].sort()).toEqual([
      'Bash',
      'Edit',
      'Glob',
      'Grep',
      'Read',
      'Write',
    ]);

    expect(requests[2]?.toolResults[0]).toMatchObject({ toolName: 'Edit', isError: false });
    const envOutput = requests[3]?.toolResults[0]?.content ?? '';
    expect(envOutput).toContain('PATH=');
    for (const value of [...Object.values(PARENT_SECRETS), 'storePasswordMustNotLeak', KEY]) {
      expect(envOutput).not.toContain(value);
    }
    expect(envOutput).not.toMatch(/^(GITHUB_TOKEN|CODEHOST_TOKEN|STORE_URL|ANTHROPIC_API_KEY)=/m);
    const home = path.join(fixture.baseDir, AGENT_DIR_NAME, 'home');
    // Sandboxed (CONTRACT §16), Bash gets a private HOME, not Claude Code's own (its config lives there).
    if (SANDBOXED) expect(envOutput).not.toContain(`HOME=${home}`);
    else expect(envOutput).toContain(`HOME=${home}`);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(fixture.baseDir, AGENT_DIR_NAME, 'config')).mode & 0o777).toBe(0o700);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_result', tool: 'Edit', isError: false }),
    );
  });

  it.runIf(SANDBOXED)('sandboxed Bash cannot see Claude Code or its environment at all', async () => {
    fixture.llm.setScript(
      routeTurns([
        {
          toolCalls: [
            {
              name: 'Bash',
              input: {
                command:
                  'for f in /proc/[0-9]*/environ; do cat "$f"; done | base64; ps -eo args; echo "claude=$CLAUDE_PID"',
              },
            },
          ],
        },
        { text: 'Looked.' },
      ]),
    );
    await makeRunner(fixture).run(runOptions(fixture, [], { tools: [...WORKER_TOOLS] }));
    const output = loopRequests(fixture.llm)[1]?.toolResults[0]?.content ?? '';
    expect(output).toContain('claude=');
    expect(output).not.toMatch(/claude=\d/);
    expect(output).not.toMatch(/cli\.js|claude-agent-sdk/);
    expect(output).not.toContain('***');
    for (const form of [KEY, Buffer.from(KEY).toString('base64').slice(0, 24)]) {
      expect(output.replace(/\s/g, '')).not.toContain(form);
    }
  });

  it('masks the API key when a tool prints it anyway (agent.sandbox: off)', async () => {
    fixture.llm.setScript(
      routeTurns([
        {
          toolCalls: [
            {
              name: 'Bash',
              input: {
                command: 'tr "\\0" "\\n" < /proc/$PPID/environ; tr "\\0" "\\n" < /proc/$CLAUDE_PID/environ',
              },
            },
          ],
        },
        { text: 'Looked.' },
      ]),
    );
    await makeRunner(fixture, { sandbox: { status: { kind: 'off' }, networkHosts: [] } }).run(
      runOptions(fixture, [], { tools: [...WORKER_TOOLS] }),
    );
    const output = loopRequests(fixture.llm)[1]?.toolResults[0]?.content ?? '';
    expect(output).toContain('ANTHROPIC_API_KEY=***');
    expect(output).not.toContain(KEY);
  });

  it('resumes the session on the next run: the request carries the first exchange', async () => {
    fixture.llm.setScript(routeTurns([{ text: 'First answer ALPHA.' }, { text: 'Second answer BETA.' }]));
    const runner = makeRunner(fixture);
    const first = await runner.run(runOptions(fixture, [], { prompt: 'First question?' }));
    const second = await runner.run(
      runOptions(fixture, [], {
        prompt: 'Second question?',
        history: first.messages,
        resumeSessionId: first.sessionId,
      }),
    );

    expect(second.text).toBe('Second answer BETA.');
    expect(second.sessionId).toBe(first.sessionId);
    const last = loopRequests(fixture.llm).at(-1);
    const texts = last?.messages.map((m) => `${m.role}:${m.text}`) ?? [];
    expect(texts.some((t) => t.startsWith('user:') && t.includes('First question?'))).toBe(true);
    expect(texts).toContain('assistant:First answer ALPHA.');
    expect(texts.at(-1)).toMatch(/^user:.*Second question\?$/s);
    // Resumed, not re-told: the history is not quoted into the prompt.
    expect(JSON.stringify(last?.body)).not.toContain('earlier-conversation');
    expect(second.messages.map((m) => m.content)).toEqual([
      'First question?',
      'First answer ALPHA.',
      'Second question?',
      'Second answer BETA.',
    ]);
  });

  it('falls back to a fresh session with the history quoted when the session cannot be resumed', async () => {
    fixture.llm.setScript(routeTurns([{ text: 'Answer after fallback.' }]));
    const missing = '0b7e8d8a-1111-4222-8333-944445555666';
    const result = await makeRunner(fixture).run(
      runOptions(fixture, [], {
        prompt: 'And now?',
        history: [
          { role: 'user', content: 'Earlier question GAMMA?' },
          { role: 'assistant', content: 'Earlier answer DELTA.' },
        ],
        resumeSessionId: missing,
      }),
    );

    expect(result.text).toBe('Answer after fallback.');
    expect(result.sessionId).not.toBe(missing);
    const requests = loopRequests(fixture.llm);
    expect(requests).toHaveLength(1);
    const prompt = requests[0]?.messages.at(-1)?.text ?? '';
    expect(prompt).toContain('<earlier-conversation>');
    expect(prompt).toContain('Earlier question GAMMA?');
    expect(prompt).toContain('Earlier answer DELTA.');
    expect(prompt).toMatch(/And now\?$/);
  });
});
