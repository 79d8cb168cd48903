/**
 * The workspace cleaner on real directories, asking the fake GitHub (through the real GitHub
 * platform) for open, closed, merged, missing and erroring pull requests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { withWorkspaceLock } from '../workspace/lock.js';
import {
  startScenarioFake,
  tempDir,
  TOKEN,
  type ScenarioFake,
} from '../../test/support/fake-github/test-kit.js';
import { createWorkspaceCleaner, findWorkspaces, platformCanHold } from './cleaner.js';

let fx: ScenarioFake;
let platforms: Map<PlatformName, Platform>;
let base: { path: string; remove(): void };

beforeAll(async () => {
  fx = await startScenarioFake(); // acme/widgets#1, open
  for (const number of [2, 3, 4, 6]) {
    await fx.fake.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number,
      bareRepoPath: fx.scenario.bareRepoPath,
      base: 'main',
      head: 'feature',
      title: `PR ${number}`,
    });
  }
  fx.fake.setPullRequestState('acme', 'widgets', 2, 'closed');
  fx.fake.setPullRequestState('acme', 'widgets', 3, 'merged');
  const platform = createGitHubPlatform({
    settings: { auth: { kind: 'token', token: TOKEN }, apiUrl: fx.fake.url, webhookSecret: undefined },
    logger: silentLogger(),
  });
  platforms = new Map([['github', platform]]);
});
afterAll(async () => {
  base?.remove();
  await fx?.close();
});
beforeEach(async () => {
  base?.remove();
  base = tempDir('reviewbot-cleaner-');
  // A base directory already in the current layout (the older one is tested on its own below).
  await writeFile(path.join(base.path, '.reviewbot-layout'), '2\n');
});

/** Creates `rel` (a directory) under the base dir with a file inside, like a checkout. */
async function workspace(rel: string): Promise<string> {
  const dir = path.join(base.path, rel);
  await mkdir(path.join(dir, '.git'), { recursive: true });
  await writeFile(path.join(dir, 'README.md'), 'checkout\n');
  return dir;
}

const at = (rel: string) => path.join(base.path, rel);

describe('findWorkspaces', () => {
  it('finds pr-<N> directories under each platform directory, but not inside workspaces, .deps or too high up', async () => {
    await workspace('github/acme/widgets/pr-1');
    await workspace('github/acme/widgets/pr-1/nested/pr-9');
    await workspace('gitlab/group/sub/project/pr-12');
    await workspace('gitlab/acme/.github/pr-2');
    await workspace('github/acme/widgets/.deps/dep/pr-4');
    await workspace('github/pr-3');
    await workspace('github/acme/pr-5');
    await workspace('github/acme/widgets/pr-x');
    await workspace('github/acme/widgets/pr-07');
    await workspace('acme/widgets/pr-6'); // older layout: not a platform directory
    await workspace('.learnings/github/acme/widgets/pr-8');
    const found = await findWorkspaces(base.path);
    expect(
      found.map((w) => [path.relative(base.path, w.dir), w.platform, w.repoFullName, w.prNumber]),
    ).toEqual([
      ['github/acme/widgets/pr-1', 'github', 'acme/widgets', 1],
      ['gitlab/acme/.github/pr-2', 'gitlab', 'acme/.github', 2],
      ['gitlab/group/sub/project/pr-12', 'gitlab', 'group/sub/project', 12],
    ]);
  });

  it('finds nothing under a missing base directory', async () => {
    expect(await findWorkspaces(at('missing'))).toEqual([]);
  });
});

describe('platformCanHold', () => {
  it.each([
    ['github', 'acme/widgets', true],
    ['github', 'group/sub/project', false],
    ['gitlab', 'acme/widgets', true],
    ['gitlab', 'group/sub/project', true],
    ['gitea', 'acme/widgets', true],
    // Gitea names are owner/repo: the client would ask about `group/sub` for `group/sub/project`.
    ['gitea', 'group/sub/project', false],
  ] as const)('%s holds %s: %s', (name, repo, expected) => {
    expect(platformCanHold(name, repo)).toBe(expected);
  });
});

describe('createWorkspaceCleaner.runOnce', () => {
  it('keeps open and unknown pull requests, deletes closed, merged and missing ones, and tidies up', async () => {
    await workspace('github/acme/widgets/pr-1'); // open → keep
    await workspace('github/acme/widgets/pr-2'); // closed → delete
    await workspace('github/acme/widgets/pr-3'); // merged → delete
    await workspace('github/acme/widgets/pr-4'); // API error → keep
    await workspace('github/acme/widgets/pr-5'); // 404 → delete
    await workspace('github/acme/widgets/pr-6'); // closed later, but busy → keep
    await mkdir(at('github/acme/widgets/.deps/lib'), { recursive: true }); // beside kept workspaces → keep
    await writeFile(at('github/acme/widgets/notes.txt'), 'not a workspace');
    await workspace('github/acme/gone/pr-1'); // repository unknown to GitHub (404) → delete, then empty dirs
    await mkdir(at('github/acme/gone/.deps/lib'), { recursive: true });
    await mkdir(at('github/orphan/repo/.deps/lib'), { recursive: true }); // no workspace at all → delete
    await workspace('github/group/sub/project/pr-3'); // not a GitHub repository path → keep
    await workspace('gitlab/acme/widgets/pr-2'); // GitLab not configured → keep
    fx.fake.setPullRequestState('acme', 'widgets', 6, 'closed');
    fx.fake.failNext('GET', /^\/repos\/acme\/widgets\/pulls\/4$/, 403);

    const busy: string[] = [];
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 6,
      logger: silentLogger(),
      isBusy: (dir, ws) => {
        busy.push(`${ws.platform}:${ws.repoFullName}#${ws.prNumber}`);
        return dir === at('github/acme/widgets/pr-6');
      },
    });
    const report = await cleaner.runOnce();

    const rel = (dirs: string[]) => dirs.map((d) => path.relative(base.path, d)).sort();
    expect(rel(report.deleted)).toEqual([
      'github/acme/gone/pr-1',
      'github/acme/widgets/pr-2',
      'github/acme/widgets/pr-3',
      'github/acme/widgets/pr-5',
    ]);
    expect(Object.fromEntries(report.kept.map((k) => [path.relative(base.path, k.dir), k.reason]))).toEqual({
      'github/acme/widgets/pr-1': 'open on github',
      'github/acme/widgets/pr-4': expect.stringMatching(/^state unknown \(GitHub API error .*403/),
      'github/acme/widgets/pr-6': 'in use by a job',
      'github/group/sub/project/pr-3': 'not a repository path of github',
      'gitlab/acme/widgets/pr-2': 'gitlab is not configured',
    });
    expect(rel(report.depsRemoved)).toEqual(['github/acme/gone/.deps', 'github/orphan/repo/.deps']);

    for (const kept of [
      'github/acme/widgets/pr-1',
      'github/acme/widgets/pr-4',
      'github/acme/widgets/pr-6',
      'github/group/sub/project/pr-3',
      'gitlab/acme/widgets/pr-2',
    ]) {
      expect(existsSync(at(kept)), kept).toBe(true);
    }
    for (const gone of [
      'github/acme/widgets/pr-2',
      'github/acme/widgets/pr-3',
      'github/acme/widgets/pr-5',
      'github/acme/gone',
      'github/orphan',
    ]) {
      expect(existsSync(at(gone)), gone).toBe(false);
    }
    expect(existsSync(at('github/acme/widgets/.deps/lib'))).toBe(true);
    expect(existsSync(at('github/acme/widgets/notes.txt'))).toBe(true);
    expect(existsSync(base.path)).toBe(true);
    expect(busy).toContain('github:acme/widgets#6');
    // The busy workspace was not even looked up.
    expect(fx.fake.requests.some((r) => r.path === '/repos/acme/widgets/pulls/6')).toBe(false);
  });

  it('never deletes a workspace in use or a directory holding one, and does not wait for it', async () => {
    await workspace('github/acme/widgets/pr-2'); // closed, and a job uses a workspace inside it
    await workspace('github/acme/widgets/pr-2/pr-9'); // e.g. GitLab acme/widgets/pr-2!9 of the older layout
    await workspace('github/acme/widgets/pr-3'); // merged, and a job holds its lock
    await workspace('github/acme/widgets/pr-5'); // 404, idle → delete
    await mkdir(at('github/orphan/repo/.deps/lib'), { recursive: true }); // a job is about to clone beside it
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const jobs = [
      withWorkspaceLock(at('github/acme/widgets/pr-2/pr-9'), () => gate),
      withWorkspaceLock(at('github/acme/widgets/pr-3'), () => gate),
      withWorkspaceLock(at('github/orphan/repo/pr-1'), () => gate),
    ];
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    const report = await cleaner.runOnce();
    release();
    await Promise.all(jobs);

    expect(report.deleted).toEqual([at('github/acme/widgets/pr-5')]);
    expect(report.kept).toEqual([
      { dir: at('github/acme/widgets/pr-2'), reason: 'in use by a job' },
      { dir: at('github/acme/widgets/pr-3'), reason: 'in use by a job' },
    ]);
    expect(report.depsRemoved).toEqual([]);
    expect(existsSync(at('github/acme/widgets/pr-2/pr-9/README.md'))).toBe(true);
    expect(existsSync(at('github/acme/widgets/pr-3/README.md'))).toBe(true);
    expect(existsSync(at('github/orphan/repo/.deps/lib'))).toBe(true);
  });

  it('removes a workspace an agent made hard to remove: deeper than PATH_MAX, a directory mode 000', async () => {
    const dir = await workspace('github/acme/widgets/pr-2'); // closed → delete
    // Made with relative paths, as a process inside the tree can: no absolute path reaches the bottom.
    const segment = 'd'.repeat(200);
    execFileSync(
      '/bin/sh',
      ['-c', `for i in $(seq 25); do mkdir ${segment} && cd ${segment}; done; echo x > f`],
      {
        cwd: dir,
      },
    );
    await mkdir(path.join(dir, 'locked', 'inner'), { recursive: true });
    await chmod(path.join(dir, 'locked'), 0o000);
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    const report = await cleaner.runOnce();
    expect(report.deleted).toEqual([dir]);
    expect(existsSync(dir)).toBe(false);
  });

  it('removes workspaces of the older layout once, never dot-directories at the base or the current layout', async () => {
    rmSync(at('.reviewbot-layout')); // a base directory from before the platform level
    await workspace('acme/widgets/pr-2'); // GitHub acme/widgets#2
    await workspace('github/widgets/pr-1'); // GitHub owner literally named `github`
    await workspace('group/sub/project/pr-3'); // GitLab group/sub/project!3
    await mkdir(at('.learnings'), { recursive: true });
    await writeFile(at('.learnings/github--acme--widgets.json'), '{}\n');
    await workspace('.learnings/acme/widgets/pr-4');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    const first = await cleaner.runOnce();
    const rel = (dirs: string[]) => dirs.map((d) => path.relative(base.path, d)).sort();
    expect(rel(first.oldLayoutRemoved)).toEqual([
      'acme/widgets/pr-2',
      'github/widgets/pr-1',
      'group/sub/project/pr-3',
    ]);
    expect(first.deleted).toEqual([]);
    expect(existsSync(at('.learnings/github--acme--widgets.json'))).toBe(true);
    expect(existsSync(at('.learnings/acme/widgets/pr-4/README.md'))).toBe(true);
    expect(existsSync(at('github'))).toBe(true);
    expect(existsSync(at('acme'))).toBe(false);

    await workspace('github/acme/widgets/pr-1'); // current layout, open
    await workspace('acme/widgets/pr-2'); // looks old, but the removal ran already
    const second = await cleaner.runOnce();
    expect(second.oldLayoutRemoved).toEqual([]);
    expect(second.kept).toEqual([{ dir: at('github/acme/widgets/pr-1'), reason: 'open on github' }]);
    expect(existsSync(at('github/acme/widgets/pr-1/README.md'))).toBe(true);
    expect(existsSync(at('acme/widgets/pr-2/README.md'))).toBe(true);
  });

  it('keeps everything when no platform is configured', async () => {
    await workspace('github/acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms: new Map(),
      intervalHours: 0,
      logger: silentLogger(),
    });
    const report = await cleaner.runOnce();
    expect(report.deleted).toEqual([]);
    expect(existsSync(at('github/acme/widgets/pr-2'))).toBe(true);
  });

  it('copes with a missing base directory', async () => {
    const cleaner = createWorkspaceCleaner({
      baseDir: at('does-not-exist'),
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    expect(await cleaner.runOnce()).toEqual({
      deleted: [],
      kept: [],
      depsRemoved: [],
      emptyRemoved: [],
      oldLayoutRemoved: [],
      storesRemoved: [],
      storesCollected: [],
    });
  });
});

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('createWorkspaceCleaner.start/stop', () => {
  it('repeats the cleanup every interval until stopped', async () => {
    await workspace('github/acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0.1 / 3600, // 100 ms
      logger: silentLogger(),
    });
    cleaner.start();
    expect(existsSync(at('github/acme/widgets/pr-2'))).toBe(true); // nothing before the first interval
    expect(await waitFor(() => !existsSync(at('github/acme/widgets/pr-2')), 5_000)).toBe(true);
    await workspace('github/acme/widgets/pr-3');
    expect(await waitFor(() => !existsSync(at('github/acme/widgets/pr-3')), 5_000)).toBe(true);
    cleaner.stop();
    await new Promise((resolve) => setTimeout(resolve, 200)); // let a round under way finish
    await workspace('github/acme/widgets/pr-2');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(existsSync(at('github/acme/widgets/pr-2'))).toBe(true);
  });

  it('does not loop when intervalHours is 0', async () => {
    await workspace('github/acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    cleaner.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(at('github/acme/widgets/pr-2'))).toBe(true);
    cleaner.stop();
    // The start-up run still works.
    const report = await cleaner.runOnce();
    expect(report.deleted).toEqual([at('github/acme/widgets/pr-2')]);
  });
});
