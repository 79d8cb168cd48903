/**
 * Shared set-up of the GitLab platform tests: the diff scenario (a real repository) served by the
 * fake GitLab as merge request `acme/platform/widgets!3` in a nested group, and a platform built on
 * it through the registry, as the CLI builds it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { startFakeGitLab, type FakeGitLab } from '../../../test/support/fake-gitlab/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import type { Platform } from '../types.js';
import { createGitLabPlatform } from './platform.js';
import { readGitLabSettings } from './settings.js';

export const TOKEN = 'glpat-unit-token-that-must-never-leak-0001';
export const PROJECT = 'acme/platform/widgets';
export const IID = 3;

/** A running fake with the scenario's merge request. */
export interface GitLabKit {
  root: string;
  fake: FakeGitLab;
  scenario: DiffScenario;
  /** A platform for `fake` with `env` overrides (default: the right token, no webhook secret). */
  platform(env?: NodeJS.ProcessEnv): Platform;
  close(): Promise<void>;
}

/** Starts the fake and registers `acme/platform/widgets!3` (feature → main). */
export async function createGitLabKit(): Promise<GitLabKit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gitlab-kit-'));
  const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  const fake = await startFakeGitLab({ token: TOKEN, username: 'review-bot' });
  await fake.addMergeRequest({
    project: PROJECT,
    iid: IID,
    bareRepoPath: scenario.bareRepoPath,
    sourceBranch: scenario.head,
    targetBranch: scenario.base,
    title: 'Tune the service constants',
    description: 'Please review.',
    author: 'alice',
  });
  return {
    root,
    fake,
    scenario,
    platform(env = {}) {
      const settings = readGitLabSettings({ GITLAB_TOKEN: TOKEN, GITLAB_URL: fake.url, ...env });
      if (!settings) throw new Error('no GitLab settings');
      return createGitLabPlatform({ settings, logger: pino({ level: 'silent' }), retry: { attempts: 2 } });
    },
    async close() {
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
