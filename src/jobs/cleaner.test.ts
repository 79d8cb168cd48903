/**
 * The workspace cleaner on real directories, asking the fake GitHub (through the real GitHub
 * platform) for open, closed, merged, missing and erroring pull requests.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName } from '../platforms/types.js';
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
beforeEach(() => {
  base?.remove();
  base = tempDir('reviewbot-cleaner-');
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
  it('finds pr-<N> directories at any depth, but not inside workspaces, .deps or too high up', async () => {
    await workspace('acme/widgets/pr-1');
    await workspace('acme/widgets/pr-1/nested/pr-9');
    await workspace('group/sub/project/pr-12');
    await workspace('acme/widgets/.deps/dep/pr-4');
    await workspace('pr-3');
    await workspace('acme/pr-5');
    await workspace('acme/widgets/pr-x');
    await workspace('acme/widgets/pr-07');
    const found = await findWorkspaces(base.path);
    expect(found.map((w) => [path.relative(base.path, w.dir), w.repoFullName, w.prNumber])).toEqual([
      ['acme/widgets/pr-1', 'acme/widgets', 1],
      ['group/sub/project/pr-12', 'group/sub/project', 12],
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
  ] as const)('%s holds %s: %s', (name, repo, expected) => {
    expect(platformCanHold(name, repo)).toBe(expected);
  });
});

describe('createWorkspaceCleaner.runOnce', () => {
  it('keeps open and unknown pull requests, deletes closed, merged and missing ones, and tidies up', async () => {
    await workspace('acme/widgets/pr-1'); // open → keep
    await workspace('acme/widgets/pr-2'); // closed → delete
    await workspace('acme/widgets/pr-3'); // merged → delete
    await workspace('acme/widgets/pr-4'); // API error → keep
    await workspace('acme/widgets/pr-5'); // 404 → delete
    await workspace('acme/widgets/pr-6'); // closed later, but busy → keep
    await mkdir(at('acme/widgets/.deps/lib'), { recursive: true }); // beside kept workspaces → keep
    await writeFile(at('acme/widgets/notes.txt'), 'not a workspace');
    await workspace('acme/gone/pr-1'); // repository unknown to GitHub (404) → delete, then empty dirs
    await mkdir(at('acme/gone/.deps/lib'), { recursive: true });
    await mkdir(at('orphan/repo/.deps/lib'), { recursive: true }); // no workspace at all → delete
    await workspace('group/sub/project/pr-3'); // not a GitHub repository path → keep
    fx.fake.setPullRequestState('acme', 'widgets', 6, 'closed');
    fx.fake.failNext('GET', /^\/repos\/acme\/widgets\/pulls\/4$/, 403);

    const busy: string[] = [];
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 6,
      logger: silentLogger(),
      isBusy: (dir, ws) => {
        busy.push(`${ws.repoFullName}#${ws.prNumber}`);
        return dir === at('acme/widgets/pr-6');
      },
    });
    const report = await cleaner.runOnce();

    const rel = (dirs: string[]) => dirs.map((d) => path.relative(base.path, d)).sort();
    expect(rel(report.deleted)).toEqual([
      'acme/gone/pr-1',
      'acme/widgets/pr-2',
      'acme/widgets/pr-3',
      'acme/widgets/pr-5',
    ]);
    expect(Object.fromEntries(report.kept.map((k) => [path.relative(base.path, k.dir), k.reason]))).toEqual({
      'acme/widgets/pr-1': 'open on github',
      'acme/widgets/pr-4': expect.stringMatching(/^state unknown \(GitHub API error .*403/),
      'acme/widgets/pr-6': 'in use by a job',
      'group/sub/project/pr-3': 'no configured platform can hold this repository',
    });
    expect(rel(report.depsRemoved)).toEqual(['acme/gone/.deps', 'orphan/repo/.deps']);

    for (const kept of [
      'acme/widgets/pr-1',
      'acme/widgets/pr-4',
      'acme/widgets/pr-6',
      'group/sub/project/pr-3',
    ]) {
      expect(existsSync(at(kept)), kept).toBe(true);
    }
    for (const gone of [
      'acme/widgets/pr-2',
      'acme/widgets/pr-3',
      'acme/widgets/pr-5',
      'acme/gone',
      'orphan',
    ]) {
      expect(existsSync(at(gone)), gone).toBe(false);
    }
    expect(existsSync(at('acme/widgets/.deps/lib'))).toBe(true);
    expect(existsSync(at('acme/widgets/notes.txt'))).toBe(true);
    expect(existsSync(base.path)).toBe(true);
    expect(busy).toContain('acme/widgets#6');
    // The busy workspace was not even looked up.
    expect(fx.fake.requests.some((r) => r.path === '/repos/acme/widgets/pulls/6')).toBe(false);
  });

  it('keeps everything when no platform is configured', async () => {
    await workspace('acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms: new Map(),
      intervalHours: 0,
      logger: silentLogger(),
    });
    const report = await cleaner.runOnce();
    expect(report.deleted).toEqual([]);
    expect(existsSync(at('acme/widgets/pr-2'))).toBe(true);
  });

  it('copes with a missing base directory', async () => {
    const cleaner = createWorkspaceCleaner({
      baseDir: at('does-not-exist'),
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    expect(await cleaner.runOnce()).toEqual({ deleted: [], kept: [], depsRemoved: [], emptyRemoved: [] });
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
    await workspace('acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0.1 / 3600, // 100 ms
      logger: silentLogger(),
    });
    cleaner.start();
    expect(existsSync(at('acme/widgets/pr-2'))).toBe(true); // nothing before the first interval
    expect(await waitFor(() => !existsSync(at('acme/widgets/pr-2')), 5_000)).toBe(true);
    await workspace('acme/widgets/pr-3');
    expect(await waitFor(() => !existsSync(at('acme/widgets/pr-3')), 5_000)).toBe(true);
    cleaner.stop();
    await new Promise((resolve) => setTimeout(resolve, 200)); // let a round under way finish
    await workspace('acme/widgets/pr-2');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(existsSync(at('acme/widgets/pr-2'))).toBe(true);
  });

  it('does not loop when intervalHours is 0', async () => {
    await workspace('acme/widgets/pr-2');
    const cleaner = createWorkspaceCleaner({
      baseDir: base.path,
      platforms,
      intervalHours: 0,
      logger: silentLogger(),
    });
    cleaner.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(at('acme/widgets/pr-2'))).toBe(true);
    cleaner.stop();
    // The start-up run still works.
    const report = await cleaner.runOnce();
    expect(report.deleted).toEqual([at('acme/widgets/pr-2')]);
  });
});
