/**
 * Least-privilege installation tokens (CONTRACT §16) against the fake GitHub: a job's platform
 * mints a token for its one repository with its bot type's permissions (the request carries both),
 * caches it per (repository, bot type), uses it for the API and git; a REVIEWER's token cannot push.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generateAppKeyPair,
  startFakeGitHub,
  type FakeGitHub,
} from '../../../test/support/fake-github/index.js';
import { createDiffScenario, type DiffScenario } from '../../../test/support/git-fixtures.js';
import { createLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import type { GitCredentials, Platform } from '../types.js';
import { createGitHubPlatform } from './platform.js';

const keys = generateAppKeyPair();
let root: string;
let github: FakeGitHub;
let scenario: DiffScenario;
let platform: Platform;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'scoped-token-'));
  scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  github = await startFakeGitHub({
    token: 'ghp_unusedPersonalToken000000000000',
    app: { appId: 4242, installationId: 77, slug: 'acme-bot', publicKeyPem: keys.publicKeyPem },
  });
  await github.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 3,
    bareRepoPath: scenario.bareRepoPath,
    base: scenario.base,
    head: scenario.head,
    title: 'Scoped tokens',
  });
  platform = createGitHubPlatform({
    settings: {
      auth: { kind: 'app', appId: '4242', installationId: 77, privateKey: keys.privateKeyPem },
      apiUrl: github.url,
      webhookSecret: undefined,
    },
    logger: createLogger({ destination: process.stderr, masker: new SecretMasker(), level: 'silent' }),
  });
});
afterAll(async () => {
  await github?.close();
  rmSync(root, { recursive: true, force: true });
});

const mints = () =>
  github.requests.filter((r) => r.operationId === 'apps/create-installation-access-token').map((r) => r.body);

/**
 * `git push` of a new commit to `branch` with `credentials`; resolves with git's exit status (async:
 * the fake answers in this process).
 */
async function push(credentials: GitCredentials, branch: string): Promise<number> {
  const clone = mkdtempSync(path.join(root, 'clone-'));
  execFileSync('git', ['clone', '-q', scenario.bareRepoPath, clone]);
  execFileSync('git', [
    '-C',
    clone,
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@t',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'x',
  ]);
  const basic = Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
  try {
    await promisify(execFile)(
      'git',
      [
        '-C',
        clone,
        '-c',
        `http.extraHeader=Authorization: Basic ${basic}`,
        'push',
        '-q',
        github.gitUrl('acme', 'widgets'),
        `HEAD:refs/heads/${branch}`,
      ],
      { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, timeout: 30_000 },
    );
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

describe('GitHub App tokens per job', () => {
  it('a REVIEWER job mints a token for its repository with read-only contents, used for the API', async () => {
    const reviewer = platform.forJob!('acme/widgets', 'reviewer');
    const before = github.requests.length;
    expect((await reviewer.getPullRequest('acme/widgets', 3)).number).toBe(3);
    expect(mints()).toEqual([
      {
        repositories: ['widgets'],
        permissions: { contents: 'read', pull_requests: 'write', issues: 'write', checks: 'write' },
      },
    ]);
    const apiCall = github.requests.slice(before).find((r) => r.operationId === 'pulls/get');
    expect(apiCall?.auth).toBe('installation');
    expect(github.violations).toEqual([]);
  });

  it('caches the token per (repository, bot type): a second REVIEWER job mints nothing new', async () => {
    const again = platform.forJob!('acme/widgets', 'reviewer');
    const first = await again.getGitCredentials();
    const second = await platform.forJob!('acme/widgets', 'reviewer').getGitCredentials();
    expect(second.password).toBe(first.password);
    expect(mints()).toHaveLength(1);
  });

  it('a WORKER job gets its own token with contents:write, and only it can push', async () => {
    const worker = await platform.forJob!('acme/widgets', 'worker').getGitCredentials();
    expect(mints()).toHaveLength(2);
    expect(mints()[1]).toEqual({
      repositories: ['widgets'],
      permissions: { contents: 'write', pull_requests: 'write', issues: 'write', checks: 'write' },
    });
    const reviewer = await platform.forJob!('acme/widgets', 'reviewer').getGitCredentials();
    expect(reviewer.password).not.toBe(worker.password);
    expect(await push(reviewer, 'from-reviewer')).not.toBe(0);
    expect(await push(worker, 'from-worker')).toBe(0);
    expect(
      execFileSync('git', ['-C', scenario.bareRepoPath, 'branch', '--list'], { encoding: 'utf8' }),
    ).toContain('from-worker');
    expect(
      execFileSync('git', ['-C', scenario.bareRepoPath, 'branch', '--list'], { encoding: 'utf8' }),
    ).not.toContain('from-reviewer');
  });

  it('a token for another repository is refused by git', async () => {
    const other = await platform.forJob!('acme/gadgets', 'worker').getGitCredentials();
    expect(await push(other, 'from-other')).not.toBe(0);
  });
});
