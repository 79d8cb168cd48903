import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeLlm } from '../../test/support/fake-llm/index.js';
import { AgentError } from '../errors.js';
import { createApiRunner, type ApiRunnerOptions } from './api-runner.js';
import { REVIEWER_TOOLS } from './tools/index.js';
import type { AgentRunOptions } from './types.js';

const KEY = 'test-key-0123456789';

const fakes = [
  ['anthropic', startFakeAnthropic, 'ANTHROPIC_API_KEY', 'invalid x-api-key'],
  ['openai', startFakeOpenAI, 'OPENAI_API_KEY', 'Incorrect API key provided'],
] as const;

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(fakes)(
  'API runner failures against the fake %s API',
  (provider, startFake, keyVar, authMessage) => {
    let fake: FakeLlm;
    let workspace: string;

    beforeAll(async () => {
      fake = await startFake({ apiKey: KEY });
      workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'api-runner-errors-')));
    });

    afterAll(async () => {
      await fake.close();
      rmSync(workspace, { recursive: true, force: true });
    });

    afterEach(() => {
      fake.requests.length = 0;
    });

    function runner(overrides: Partial<ApiRunnerOptions> = {}) {
      return createApiRunner({
        provider,
        model: 'model-x',
        baseUrl: `${fake.url}/v1`,
        env: { [keyVar]: KEY },
        ...overrides,
      });
    }

    function options(overrides: Partial<AgentRunOptions> = {}): AgentRunOptions {
      return {
        workspaceDir: workspace,
        systemPrompt: 'Review.',
        prompt: 'Go',
        tools: [...REVIEWER_TOOLS],
        maxTurns: 3,
        ...overrides,
      };
    }

    async function failure(promise: Promise<unknown>): Promise<AgentError> {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AgentError);
      return error as AgentError;
    }

    it('stops at maxTurns when the model keeps calling tools', async () => {
      fake.setScript(() => ({ toolCalls: [{ name: 'Glob', input: { pattern: '*' } }] }));
      const error = await failure(runner().run(options({ maxTurns: 3 })));
      expect(error.message).toBe(
        'the agent reached the turn limit (3 model calls) while still calling tools',
      );
      expect(fake.requests).toHaveLength(3);
    });

    it('accepts a review submitted on the last allowed turn', async () => {
      fake.setScript([
        { toolCalls: [{ name: 'Glob', input: { pattern: '*' } }] },
        { toolCalls: [{ name: 'submit_review', input: { summary: 'ok', comments: [] } }] },
      ]);
      const result = await runner().run(options({ maxTurns: 2 }));
      expect(result.submitted).toEqual({ summary: 'ok', comments: [] });
    });

    it('turns a 500 into an AgentError after two retries', async () => {
      fake.setScript(() => ({ error: { status: 500, headers: { 'retry-after-ms': '0' } } }));
      const error = await failure(runner().run(options()));
      expect(error.message).toMatch(new RegExp(`^LLM provider ${provider} returned 500: `));
      expect(fake.requests).toHaveLength(3);
    });

    it('turns a rejected key into a short AgentError without the key, and does not retry', async () => {
      const wrongKey = 'wrong-key-abcdefghijkl';
      const error = await failure(runner({ env: { [keyVar]: wrongKey } }).run(options()));
      expect(error.message).toMatch(new RegExp(`^LLM provider ${provider} returned 401: ${authMessage}`));
      expect(error.message).not.toContain(wrongKey);
      expect(error.message).not.toContain('\n');
      expect(fake.requests).toHaveLength(1);
    });

    it('reports an unreachable provider', async () => {
      const port = await closedPort();
      const error = await failure(
        runner({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }).run(options()),
      );
      expect(error.message).toMatch(new RegExp(`^could not reach LLM provider ${provider}: `));
    });

    it('stops when aborted', async () => {
      fake.setScript([{ text: 'late', delayMs: 2000 }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      const error = await failure(runner().run(options({ signal: controller.signal })));
      expect(error.message).toBe('agent run aborted');
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('refuses a missing workspace', async () => {
      const error = await failure(runner().run(options({ workspaceDir: path.join(workspace, 'missing') })));
      expect(error.message).toMatch(/does not exist/);
      expect(fake.requests).toHaveLength(0);
    });
  },
);
