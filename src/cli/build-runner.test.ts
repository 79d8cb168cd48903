import { describe, expect, it } from 'vitest';
import { isClaudeAgentSdkInstalled } from '../agent/claude-code/sdk-loader.js';
import { rawConfigSchema } from '../config/schema.js';
import { ConfigError, UsageError } from '../errors.js';
import { createLogger } from '../logger.js';
import { SecretMasker } from '../secrets.js';
import { buildRunner, lazyRunner } from './build-runner.js';
import type { AgentRunOptions, AgentRunResult } from '../agent/types.js';

const masker = new SecretMasker();
const logger = createLogger({ destination: 'stderr', masker, level: 'silent' });

describe('buildRunner', () => {
  it('without a provider and without the Agent SDK, says how to fix it (exit 2)', () => {
    const config = rawConfigSchema.parse({});
    let error: unknown;
    try {
      buildRunner(config, { ANTHROPIC_API_KEY: 'k' }, masker, logger, { sdkInstalled: () => false });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toContain('npm install @anthropic-ai/claude-agent-sdk');
    expect((error as Error).message).toContain('AGENT_PROVIDER');
  });

  it('without a provider, builds the Claude Code runner, which needs an Anthropic credential', () => {
    const config = rawConfigSchema.parse({});
    const runner = buildRunner(config, { CLAUDE_CODE_OAUTH_TOKEN: 'oat-token' }, masker, logger, {
      sdkInstalled: () => true,
    });
    expect(typeof runner.run).toBe('function');
    expect(() => buildRunner(config, {}, masker, logger, { sdkInstalled: () => true })).toThrow(ConfigError);
  });

  it('with a provider, builds the API runner (and never needs the SDK)', () => {
    const config = rawConfigSchema.parse({ agent: { provider: 'openai' } });
    const runner = buildRunner(config, { OPENAI_API_KEY: 'sk-x' }, masker, logger, {
      sdkInstalled: () => {
        throw new Error('must not be asked');
      },
    });
    expect(typeof runner.run).toBe('function');
    expect(() => buildRunner(config, {}, masker, logger)).toThrow(/OPENAI_API_KEY/);
  });
});

describe('lazyRunner', () => {
  it('loads the runner on the first run only, and again after a failed load', async () => {
    const result = { summary: 'ok' } as unknown as AgentRunResult;
    let loads = 0;
    const runner = lazyRunner(() => {
      loads += 1;
      if (loads === 1) return Promise.reject(new Error('cannot load the SDK'));
      return Promise.resolve({ run: () => Promise.resolve(result) });
    });
    expect(loads).toBe(0);
    const options = { prompt: 'p' } as unknown as AgentRunOptions;
    await expect(runner.run(options)).rejects.toThrow('cannot load the SDK');
    expect(await runner.run(options)).toBe(result);
    expect(await runner.run(options)).toBe(result);
    expect(loads).toBe(2);
  });

  it('preload loads the runner and runs its own preload, once', async () => {
    let loads = 0;
    let preloads = 0;
    const runner = lazyRunner(() => {
      loads += 1;
      return Promise.resolve({
        run: () => Promise.reject(new Error('not called')),
        preload: () => {
          preloads += 1;
          return Promise.resolve();
        },
      });
    });
    await runner.preload();
    expect([loads, preloads]).toEqual([1, 1]);
    await runner.preload();
    expect([loads, preloads]).toEqual([1, 2]);
  });

  it('preloads the real API runner and its provider SDK', async () => {
    const config = rawConfigSchema.parse({ agent: { provider: 'openai' } });
    await expect(buildRunner(config, { OPENAI_API_KEY: 'sk-x' }, masker, logger).preload()).resolves.toBe(
      undefined,
    );
  });
});

describe('isClaudeAgentSdkInstalled', () => {
  it('is true when the SDK resolves (it is installed in this checkout) and false when it does not', () => {
    expect(isClaudeAgentSdkInstalled()).toBe(true);
    expect(
      isClaudeAgentSdkInstalled(() => {
        throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' });
      }),
    ).toBe(false);
  });
});
