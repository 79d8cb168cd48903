/**
 * The review-memory methods of every platform (CONTRACT §13, §14) against the fakes, on a real
 * repository: file text at a ref, commit comparison (ahead, identical, diverged after a force-push,
 * unknown commit), the bot's threads and their resolution — never of a thread it did not start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../test/support/fake-github/index.js';
import { startFakeGitea, type FakeGitea } from '../../test/support/fake-gitea/index.js';
import { startFakeGitLab, type FakeGitLab } from '../../test/support/fake-gitlab/index.js';
import { commitToBranch, createBareRepo } from '../../test/support/git-fixtures.js';
import { PlatformError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { createGitHubPlatform } from './github/platform.js';
import { createGiteaPlatform } from './gitea/platform.js';
import { readGiteaSettings } from './gitea/settings.js';
import { createGitLabPlatform } from './gitlab/platform.js';
import { readGitLabSettings } from './gitlab/settings.js';
import type { Platform } from './types.js';

const TOKEN = 'memory-test-token-0123456789';
const CODE = ['export function area(r: number): number {', '  return 3.14 * r * r;', '}', ''].join('\n');

interface Repo {
  bare: string;
  base: string;
  first: string;
  second: string;
}

function createRepo(root: string, fullName: string): Repo {
  const bare = createBareRepo(path.join(root, 'repos'), fullName);
  const base = commitToBranch(bare, {
    branch: 'main',
    message: 'base',
    changes: { write: { '.reviewbot.yaml': 'review:\n  max_comments: 2\n', 'docs/guide.md': '# Guide\n' } },
  });
  const first = commitToBranch(bare, {
    branch: 'feature',
    from: 'main',
    message: 'add area',
    changes: { write: { 'src/area.ts': CODE } },
  });
  const second = commitToBranch(bare, {
    branch: 'feature',
    message: 'tweak',
    changes: { write: { 'src/area.ts': CODE.replace('3.14', 'Math.PI') } },
  });
  return { bare, base, first, second };
}

interface Kit {
  name: string;
  platform: Platform;
  repo: Repo;
  repoFullName: string;
  pr: number;
  /** Starts a thread by another user on `src/area.ts` line 2; returns nothing. */
  seedForeignThread(): Promise<void>;
  /** Threads stored by the fake: id, resolved, author. */
  stored(): Array<{ resolved: boolean; author: string }>;
  violations(): unknown[];
  close(): Promise<void>;
}

async function githubKit(): Promise<Kit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memory-gh-'));
  const repo = createRepo(root, 'acme/shapes');
  const fake: FakeGitHub = await startFakeGitHub({ token: TOKEN, login: 'reviewbot-test' });
  await fake.addPullRequest({
    owner: 'acme',
    repo: 'shapes',
    number: 4,
    bareRepoPath: repo.bare,
    base: 'main',
    head: 'feature',
    title: 'Area',
  });
  const platform = createGitHubPlatform({
    settings: { auth: { kind: 'token', token: TOKEN }, apiUrl: fake.url, webhookSecret: undefined },
    logger: silentLogger(),
  });
  return {
    name: 'github',
    platform,
    repo,
    repoFullName: 'acme/shapes',
    pr: 4,
    async seedForeignThread() {
      await fake.addReviewComment({
        owner: 'acme',
        repo: 'shapes',
        number: 4,
        body: 'Human remark',
        user: 'octocat',
        path: 'src/area.ts',
        line: 2,
      });
    },
    stored: () => fake.reviewThreads.map((t) => ({ resolved: t.resolved, author: t.author })),
    violations: () => fake.violations,
    async close() {
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function gitlabKit(): Promise<Kit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memory-gl-'));
  const repo = createRepo(root, 'acme/shapes');
  const fake: FakeGitLab = await startFakeGitLab({ token: TOKEN, username: 'review-bot' });
  await fake.addMergeRequest({
    project: 'acme/geo/shapes',
    iid: 4,
    bareRepoPath: repo.bare,
    sourceBranch: 'feature',
    targetBranch: 'main',
    title: 'Area',
  });
  const settings = readGitLabSettings({ GITLAB_TOKEN: TOKEN, GITLAB_URL: fake.url });
  if (!settings) throw new Error('no GitLab settings');
  const platform = createGitLabPlatform({ settings, logger: silentLogger(), retry: { attempts: 1 } });
  return {
    name: 'gitlab',
    platform,
    repo,
    repoFullName: 'acme/geo/shapes',
    pr: 4,
    async seedForeignThread() {
      await fake.diffRefs('acme/geo/shapes', 4);
      fake.addNote({
        project: 'acme/geo/shapes',
        iid: 4,
        body: 'Human remark',
        author: 'alice',
        position: { newPath: 'src/area.ts', newLine: 2 },
      });
    },
    stored: () =>
      fake.discussions
        .filter((d) => d.notes[0]?.type === 'DiffNote')
        .map((d) => ({ resolved: d.resolved, author: d.notes[0]?.author ?? '' })),
    violations: () => fake.violations,
    async close() {
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function giteaKit(): Promise<Kit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'memory-gt-'));
  const repo = createRepo(root, 'acme/shapes');
  const fake: FakeGitea = await startFakeGitea({
    token: TOKEN,
    username: 'review-bot',
    resolveEndpoint: true,
  });
  fake.addPullRequest({
    repo: 'acme/shapes',
    index: 4,
    bareRepoPath: repo.bare,
    headBranch: 'feature',
    baseBranch: 'main',
    title: 'Area',
  });
  const settings = readGiteaSettings({ GITEA_TOKEN: TOKEN, GITEA_URL: fake.url });
  if (!settings) throw new Error('no Gitea settings');
  const platform = createGiteaPlatform({ settings, logger: silentLogger(), retry: { attempts: 1 } });
  // Gitea's conversations are per file and line: another user's thread sits on another line.
  const firsts = () =>
    fake.codeComments.filter(
      (c, i, all) => all.findIndex((o) => o.path === c.path && o.line === c.line) === i,
    );
  return {
    name: 'gitea',
    platform,
    repo,
    repoFullName: 'acme/shapes',
    pr: 4,
    seedForeignThread() {
      fake.addCodeComment({
        repo: 'acme/shapes',
        index: 4,
        author: 'alice',
        body: 'Human remark',
        path: 'src/area.ts',
        line: 1,
      });
      return Promise.resolve();
    },
    stored: () => firsts().map((c) => ({ resolved: c.resolver !== null, author: c.author })),
    violations: () => fake.violations,
    async close() {
      await fake.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe.each([
  { name: 'github', start: githubKit },
  { name: 'gitlab', start: gitlabKit },
  { name: 'gitea', start: giteaKit },
])('review memory on $name', ({ start }) => {
  let kit: Kit;
  beforeAll(async () => {
    kit = await start();
  });
  afterAll(() => kit?.close());

  it('reads a file at the base commit, and null for a missing one', async () => {
    const { platform, repoFullName, repo } = kit;
    expect(await platform.getFileContent!(repoFullName, '.reviewbot.yaml', repo.base)).toBe(
      'review:\n  max_comments: 2\n',
    );
    expect(await platform.getFileContent!(repoFullName, 'docs/guide.md', repo.base)).toBe('# Guide\n');
    expect(await platform.getFileContent!(repoFullName, 'src/area.ts', repo.base)).toBeNull();
    expect(await platform.getFileContent!(repoFullName, 'src/area.ts', repo.first)).toBe(CODE);
  });

  it('compares commits: ahead with the changes, identical, unknown', async () => {
    const { platform, repoFullName, repo } = kit;
    const ahead = await platform.compareCommits!(repoFullName, repo.first, repo.second);
    expect(ahead?.status).toBe('ahead');
    expect(ahead?.files.map((f) => f.path)).toEqual(['src/area.ts']);
    expect(ahead?.files[0]?.patch).toContain('+  return Math.PI * r * r;');
    expect(ahead?.files[0]?.patch).toContain('-  return 3.14 * r * r;');
    expect((await platform.compareCommits!(repoFullName, repo.second, repo.second))?.status).toBe(
      'identical',
    );
    expect((await platform.compareCommits!(repoFullName, repo.second, repo.first))?.status).toBe('behind');
    expect(await platform.compareCommits!(repoFullName, 'f'.repeat(40), repo.second)).toBeNull();
  });

  it("lists the bot's thread and resolves it; refuses another user's thread", async () => {
    const { platform, repoFullName, pr, repo } = kit;
    await platform.submitReview(repoFullName, pr, {
      body: 'Review',
      commitSha: repo.second,
      comments: [{ path: 'src/area.ts', line: 2, side: 'RIGHT', body: 'Finding <!-- marker -->' }],
    });
    await kit.seedForeignThread();
    const threads = await platform.listReviewThreads!(repoFullName, pr);
    expect(threads).toHaveLength(2);
    const bot = threads.find((t) => t.body.includes('Finding'))!;
    expect(bot).toMatchObject({ path: 'src/area.ts', resolved: false, body: 'Finding <!-- marker -->' });
    expect(['reviewbot-test', 'review-bot']).toContain(bot.authorUsername);
    await platform.resolveThread!(repoFullName, pr, bot.id);
    const after = await platform.listReviewThreads!(repoFullName, pr);
    expect(after.find((t) => t.id === bot.id)?.resolved).toBe(true);
    expect(after.find((t) => t.id !== bot.id)?.resolved).toBe(false);
    expect(kit.stored().filter((t) => t.resolved)).toHaveLength(1);
    expect(kit.violations()).toEqual([]);
    if (kit.name === 'github') {
      const foreign = after.find((t) => t.id !== bot.id)!;
      await expect(platform.resolveThread!(repoFullName, pr, foreign.id)).rejects.toBeInstanceOf(
        PlatformError,
      );
      expect(kit.stored().filter((t) => t.resolved)).toHaveLength(1);
    }
  });
});
