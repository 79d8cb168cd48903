/**
 * Fixture of the job integration tests: a real repository (the diff scenario) served by the fake
 * GitHub as `acme/widgets#7`, a fake Anthropic API, the real GitHub platform and API runner over
 * loopback HTTP, and a JobContext wired to them with an in-memory conversation store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createApiRunner } from '../agent/api-runner.js';
import { rawConfigSchema, type RawConfig } from '../config/schema.js';
import { createLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName, ReviewComment } from '../platforms/types.js';
import { SecretMasker } from '../secrets.js';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/index.js';
import { startFakeAnthropic, type FakeLlm } from '../../test/support/fake-llm/index.js';
import { createDiffScenario, runGitAsync, type DiffScenario } from '../../test/support/git-fixtures.js';
import { createMemoryConversationStore } from './conversation-store.js';
import type { JobContext } from './job-context.js';

export const TOKEN = 'ghp_jobsFixtureTokenThatMustNeverLeak0123';
export const LLM_KEY = 'sk-ant-jobs-fixture-key-that-must-never-leak';
export const REVIEWER = 'rb-review';
export const WORKER = 'rb-worker';

/** The running fixture. */
export interface JobFixture {
  root: string;
  baseDir: string;
  github: FakeGitHub;
  llm: FakeLlm;
  scenario: DiffScenario;
  platform: Platform;
  config: RawConfig;
  ctx: JobContext;
  /** Every log line written so far (JSON text, secrets masked by the logger). */
  logs: string[];
  /** A mention comment on `acme/widgets#7` as the webhook parser would produce it. */
  comment(overrides?: Partial<ReviewComment>): ReviewComment;
  /** `git <args>` in the bare repository of `acme/widgets` (async: the fake serves it in-process). */
  bareGit(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts the fakes, registers `acme/widgets#7` (head `feature`, base `main`) and builds the context. */
export async function startJobFixture(): Promise<JobFixture> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-jobs-'));
  const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  const github = await startFakeGitHub({ token: TOKEN, login: 'reviewbot-test' });
  await github.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    bareRepoPath: scenario.bareRepoPath,
    base: scenario.base,
    head: scenario.head,
    title: 'Tune the service constants',
    body: 'Please have a look.',
  });
  const llm = await startFakeAnthropic({ apiKey: LLM_KEY });
  const masker = new SecretMasker([TOKEN, LLM_KEY]);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      );
      callback();
    },
  });
  const logger = createLogger({ destination: sink, masker, level: 'debug' });
  const platform = createGitHubPlatform({
    settings: { auth: { kind: 'token', token: TOKEN }, apiUrl: github.url, webhookSecret: undefined },
    logger,
  });
  const baseDir = path.join(root, 'workspaces');
  const config = rawConfigSchema.parse({
    reviewer: { bot_username: REVIEWER },
    worker: { bot_username: WORKER },
    agent: { provider: 'anthropic', model: 'test-model', max_turns: 10 },
    workspace: { base_dir: baseDir },
  });
  const env = { ANTHROPIC_API_KEY: LLM_KEY, ANTHROPIC_BASE_URL: llm.url };
  const ctx: JobContext = {
    platforms: new Map<PlatformName, Platform>([['github', platform]]),
    createRunner: () =>
      createApiRunner({ provider: 'anthropic', model: 'test-model', env, masker, logger, maxRetries: 0 }),
    config,
    store: createMemoryConversationStore(),
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    masker,
  };
  return {
    root,
    baseDir,
    github,
    llm,
    scenario,
    platform,
    config,
    ctx,
    logs,
    comment: (overrides = {}) => ({
      platform: 'github',
      repoFullName: 'acme/widgets',
      prNumber: 7,
      prBranch: 'feature',
      baseBranch: 'main',
      headSha: scenario.headSha,
      prTitle: 'Tune the service constants',
      commentId: '',
      commentType: 'issue_comment',
      authorUsername: 'alice',
      body: '',
      cloneUrl: github.gitUrl('acme', 'widgets'),
      deliveryId: 'delivery-1',
      eventType: 'comment',
      ...overrides,
    }),
    bareGit: async (...args) => (await runGitAsync(scenario.bareRepoPath, args)).trim(),
    async close() {
      await llm.close();
      await github.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The value of the Prometheus sample `name{labels} value` (or `name value` when `labels` is empty)
 * in exposition `text`, or undefined.
 */
export function metricValue(text: string, name: string, labels: string): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}
