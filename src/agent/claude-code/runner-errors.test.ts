/**
 * How Claude Code runs end when something goes wrong — with the real binary against the fake
 * Anthropic API: API errors, the turn limit, abort, the time limit, a missing credential and a
 * binary that cannot start each end in a clear `AgentError` (or `ConfigError`), never a hang.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentError, ConfigError } from '../../errors.js';
import {
  createRunnerFixture,
  KEY,
  loopRequests,
  makeRunner,
  routeTurns,
  runOptions,
  type RunnerFixture,
} from './runner-fixture.test-helper.js';

describe('Claude Code runner failures', () => {
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

  it('ends with an AgentError naming the status after retrying a 500 twice', async () => {
    fixture.llm.setScript((request) =>
      request.toolNames.length === 0 ? { text: 'side' } : { error: { status: 500 } },
    );
    const started = Date.now();
    const error = await makeRunner(fixture)
      .run(runOptions(fixture, []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/^the agent \(Claude Code\) failed: API Error: 500/);
    expect((error as Error).message).not.toContain(KEY);
    expect(loopRequests(fixture.llm)).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('does not retry a 500 when maxRetries is 0', async () => {
    fixture.llm.setScript((request) =>
      request.toolNames.length === 0 ? { text: 'side' } : { error: { status: 500 } },
    );
    const error = await makeRunner(fixture, { maxRetries: 0 })
      .run(runOptions(fixture, []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect(loopRequests(fixture.llm)).toHaveLength(1);
  });

  it('ends with an AgentError on a 400', async () => {
    fixture.llm.setScript((request) =>
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
    const started = Date.now();
    const error = await makeRunner(fixture)
      .run(runOptions(fixture, []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/API Error: 400.*Your request was malformed/);
    expect(loopRequests(fixture.llm).length).toBeLessThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('reports the turn limit when the model keeps calling tools', async () => {
    fixture.llm.setScript((request) =>
      request.toolNames.length === 0
        ? { text: 'side' }
        : { toolCalls: [{ name: 'Glob', input: { pattern: '**/*.ts' } }] },
    );
    const error = await makeRunner(fixture)
      .run(runOptions(fixture, [], { maxTurns: 2 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toBe('the agent reached the turn limit (2 turns) before it finished');
    expect(loopRequests(fixture.llm)).toHaveLength(2);
  });

  it('uses the smaller of the runner and run turn limits', async () => {
    fixture.llm.setScript((request) =>
      request.toolNames.length === 0
        ? { text: 'side' }
        : { toolCalls: [{ name: 'Glob', input: { pattern: '*' } }] },
    );
    const error = await makeRunner(fixture, { maxTurns: 1 })
      .run(runOptions(fixture, [], { maxTurns: 5 }))
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('the agent reached the turn limit (1 turn) before it finished');
  });

  it('stops the run when the caller aborts', async () => {
    fixture.llm.setScript(routeTurns([{ text: 'late', delayMs: 20_000 }]));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_500);
    const started = Date.now();
    const error = await makeRunner(fixture)
      .run(runOptions(fixture, [], { signal: controller.signal }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toBe('agent run aborted');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops the run at its time limit', async () => {
    fixture.llm.setScript(routeTurns([{ text: 'late', delayMs: 20_000 }]));
    const error = await makeRunner(fixture, { timeoutMs: 2_000 })
      .run(runOptions(fixture, []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toBe('the agent did not finish within 2 s');
  });

  it('refuses to start without ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN', () => {
    expect(() => makeRunner(fixture, { env: { PATH: process.env.PATH } })).toThrow(ConfigError);
    expect(() => makeRunner(fixture, { env: { PATH: process.env.PATH } })).toThrow(
      /ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN is required/,
    );
  });

  it('reports a Claude Code executable that cannot run', async () => {
    const cliPath = path.join(fixture.baseDir, 'no-such-claude');
    const error = await makeRunner(fixture, { cliPath })
      .run(runOptions(fixture, []))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/^could not run Claude Code: .*no-such-claude/);
  });

  it('refuses a workspace that does not exist', async () => {
    const error = await makeRunner(fixture)
      .run(runOptions(fixture, [], { workspaceDir: path.join(fixture.baseDir, 'missing') }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/does not exist/);
  });
});
