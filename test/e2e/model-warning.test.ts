/**
 * Issue 18: a deprecated model is warned about once at start-up by `review`, `serve` and `run-job`
 * (naming the model and its end-of-life date), and still runs; the defaults are not warned about.
 * Real processes of the built CLI against the fake GitHub and the fake Anthropic API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeLlm } from '../support/fake-llm/index.js';
import { payloadsFor } from '../support/job-payloads.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { runCli } from '../support/run-cli.js';
import { startServe } from '../support/serve-process.js';
import { createCliFixture, GITHUB_TOKEN, LLM_KEY, type CliFixture } from './cli-fixture.js';
import { summaryReply, WEBHOOK_SECRET } from './serve-fixture.js';

const DEPRECATED = 'claude-sonnet-4-5';
const END_OF_LIFE = 'November 30th, 2026';
const WARNING = /model claude-sonnet-4-5 is deprecated and reaches end-of-life on November 30th, 2026/;

let fx: CliFixture;
let llm: FakeLlm;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fx = await createCliFixture();
  llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  llm.setScript(() => summaryReply('Looks fine.'));
  env = {
    CODEHOST_TOKEN: GITHUB_TOKEN,
    CODEHOST_API_URL: fx.github.url,
    WORKSPACE_BASE_DIR: fx.baseDir,
    HOME: fx.root,
    AGENT_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: LLM_KEY,
    ANTHROPIC_BASE_URL: llm.url,
  };
});
afterAll(async () => {
  await llm?.close();
  await fx?.close();
});

describe('reviewbot review', () => {
  it('warns once on stderr for a deprecated AGENT_MODEL, still reviews, and --json carries it', async () => {
    const result = await runCli(['review', 'acme/widgets#7', '--dry-run', '--json'], {
      ...env,
      AGENT_MODEL: DEPRECATED,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(new RegExp(WARNING.source, 'g'))).toHaveLength(1);
    const json = JSON.parse(result.stdout) as { warnings: string[]; model: string; summary: string };
    expect(json.model).toBe(DEPRECATED);
    expect(json.summary).toBe('Looks fine.');
    expect(json.warnings).toHaveLength(1);
    expect(json.warnings[0]).toContain(END_OF_LIFE);
    expect(llm.requests.at(-1)?.model).toBe(DEPRECATED);
  });

  it('says nothing about the default model, which is what a fresh install calls', async () => {
    const result = await runCli(['review', 'acme/widgets#7', '--dry-run', '--json'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/deprecated/);
    const json = JSON.parse(result.stdout) as { warnings: string[]; model: string };
    expect(json.warnings).toEqual([]);
    expect(json.model).toBe('claude-sonnet-5-5');
    expect(llm.requests.at(-1)?.model).toBe('claude-sonnet-5-5');
  });
});

describe('reviewbot serve', () => {
  const serveEnv = (): NodeJS.ProcessEnv => ({
    ...env,
    CODEHOST_WEBHOOK_SECRET: WEBHOOK_SECRET,
    REVIEWER_BOT_USERNAME: 'review-bot',
    CLEANUP_INTERVAL_HOURS: '0',
  });

  it('logs one warning at start-up for a deprecated AGENT_MODEL and still listens', async () => {
    const server = await startServe({ ...serveEnv(), AGENT_MODEL: DEPRECATED });
    try {
      const warnings = server.logs.filter((l) => typeof l.msg === 'string' && WARNING.test(l.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.level).toBe(40);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('logs no such warning with the default model', async () => {
    const server = await startServe(serveEnv());
    try {
      expect(server.logs.some((l) => typeof l.msg === 'string' && /deprecated/.test(l.msg))).toBe(false);
    } finally {
      await server.stop();
    }
  });
});

describe('reviewbot run-job', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const runJob = (model?: string) => {
    const [payload] = payloadsFor(7, 1);
    return runCli(['run-job'], {
      ...env,
      ...(model ? { AGENT_MODEL: model } : {}),
      STORE_URL: redis.url,
      REVIEWER_BOT_USERNAME: 'review-bot',
      REVIEWBOT_JOB_PAYLOAD: JSON.stringify(payload),
    });
  };

  it('logs one warning for a deprecated AGENT_MODEL and still runs the job', async () => {
    const result = await runJob(DEPRECATED);
    expect(result.stderr.match(new RegExp(WARNING.source, 'g'))).toHaveLength(1);
    expect(result.code).toBe(0);
    expect(llm.requests.at(-1)?.model).toBe(DEPRECATED);
  });

  it('logs no such warning with the default model', async () => {
    const result = await runJob();
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/deprecated/);
  });
});
