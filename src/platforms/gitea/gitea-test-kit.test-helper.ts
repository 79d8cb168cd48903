/**
 * Shared set-up of the Gitea platform tests: the diff scenario (a real repository) served by the
 * fake Gitea as pull request `acme/widgets#3`, and a platform built through the registry's settings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import {
  startFakeGitea,
  type FakeGitea,
  type FakeGiteaOptions,
} from '../../../test/support/fake-gitea/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import type { Platform } from '../types.js';
import { createGiteaPlatform } from './platform.js';
import { readGiteaSettings } from './settings.js';

export const TOKEN = 'gitea-unit-token-that-must-never-leak-0001';
export const REPO = 'acme/widgets';
export const INDEX = 3;
export const BOT = 'review-bot';

/** A running fake with the scenario's pull request. */
export interface GiteaKit {
  root: string;
  fake: FakeGitea;
  scenario: DiffScenario;
  /** A platform for `fake` with `env` overrides (default: the right token, no webhook secret). */
  platform(env?: NodeJS.ProcessEnv): Platform;
  close(): Promise<void>;
}

/** Starts the fake and registers `acme/widgets#3` (feature → main). */
export async function createGiteaKit(options: Partial<FakeGiteaOptions> = {}): Promise<GiteaKit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gitea-kit-'));
  const scenario = createDiffScenario(path.join(root, 'repos'), REPO);
  const fake = await startFakeGitea({ token: TOKEN, username: BOT, ...options });
  fake.addPullRequest({
    repo: REPO,
    index: INDEX,
    bareRepoPath: scenario.bareRepoPath,
    headBranch: scenario.head,
    baseBranch: scenario.base,
    title: 'Tune the service constants',
    body: 'Please review.',
    author: 'alice',
  });
  return {
    root,
    fake,
    scenario,
    platform(env = {}) {
      const settings = readGiteaSettings({ GITEA_TOKEN: TOKEN, GITEA_URL: fake.url, ...env });
      if (!settings) throw new Error('no Gitea settings');
      return createGiteaPlatform({ settings, logger: pino({ level: 'silent' }), retry: { attempts: 1 } });
    },
    async close() {
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
