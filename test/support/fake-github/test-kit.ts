/**
 * Helpers shared by the fake's own tests: a quiet Octokit pointed at the fake, temp directories,
 * and a fake with the diff scenario registered as `acme/widgets#1`.
 */
import { Octokit } from '@octokit/rest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiffScenario, type DiffScenario } from '../git-fixtures.js';
import { startFakeGitHub } from './fake-github.js';
import type { FakeGitHub, FakeGitHubOptions } from './types.js';

/** Token the tests' fakes accept. */
export const TOKEN = 'ghp_faketoken0123456789abcdefABCDEF0123';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An Octokit for `fake` (no retries, no logging); `auth` defaults to `TOKEN`, `null` = anonymous. */
export function octokitFor(fake: FakeGitHub, auth: string | null = TOKEN): Octokit {
  return new Octokit({ baseUrl: fake.url, log: silent, ...(auth === null ? {} : { auth }) });
}

/** A temp directory and its removal. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A started fake serving the diff scenario as `acme/widgets#1` (author `octocat`). */
export interface ScenarioFake {
  fake: FakeGitHub;
  scenario: DiffScenario;
  root: string;
  octokit: Octokit;
  close(): Promise<void>;
}

/** Starts a fake, builds the diff scenario and registers pull request `acme/widgets#1`. */
export async function startScenarioFake(options: Partial<FakeGitHubOptions> = {}): Promise<ScenarioFake> {
  const dir = tempDir('fake-github-test-');
  const scenario = createDiffScenario(dir.path, 'acme/widgets');
  const fake = await startFakeGitHub({ token: TOKEN, ...options });
  await fake.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 1,
    bareRepoPath: scenario.bareRepoPath,
    base: scenario.base,
    head: scenario.head,
    title: 'Add the guide',
    body: 'Please review.',
  });
  return {
    fake,
    scenario,
    root: dir.path,
    octokit: octokitFor(fake),
    async close() {
      await fake.close();
      dir.remove();
    },
  };
}

/** The HTTP status of a rejected Octokit call (throws if the call succeeded). */
export async function statusOf(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await call;
  } catch (error) {
    const e = error as { status?: number; response?: { data?: unknown } };
    return { status: e.status ?? 0, data: e.response?.data };
  }
  throw new Error('expected the request to fail');
}
