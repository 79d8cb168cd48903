/**
 * The cleaner on a base directory shared with other processes (cluster mode, `workspace.shared_dir`,
 * CONTRACT §11, §19): a tree whose `pr-<N>.lock` a job of another process holds is kept even when
 * its pull request is closed; once that process is killed, its stale lock is taken over and the
 * tree goes.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import {
  startScenarioFake,
  tempDir,
  TOKEN,
  type ScenarioFake,
} from '../../test/support/fake-github/test-kit.js';
import { createWorkspaceCleaner } from './cleaner.js';

let fx: ScenarioFake;
let platforms: Map<PlatformName, Platform>;
let base: { path: string; remove(): void };

beforeAll(async () => {
  fx = await startScenarioFake(); // acme/widgets#1, open
  await fx.fake.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 2,
    bareRepoPath: fx.scenario.bareRepoPath,
    base: 'main',
    head: 'feature',
    title: 'PR 2',
  });
  fx.fake.setPullRequestState('acme', 'widgets', 2, 'closed');
  const platform = createGitHubPlatform({
    settings: { auth: { kind: 'token', token: TOKEN }, apiUrl: fx.fake.url, webhookSecret: undefined },
    logger: silentLogger(),
  });
  platforms = new Map([['github', platform]]);
  base = tempDir('reviewbot-cleaner-shared-');
  await writeFile(path.join(base.path, '.reviewbot-layout'), '2\n');
});
afterAll(async () => {
  base?.remove();
  await fx?.close();
});

const LOCK_MODULE = fileURLToPath(new URL('../../dist/src/workspace/lock.js', import.meta.url));

describe('cleaner on a shared base directory', () => {
  it("keeps a closed pull request's tree another process holds; removes it once that process is killed", async () => {
    const dir = path.join(base.path, 'github/acme/widgets/pr-2');
    await mkdir(path.join(dir, '.git'), { recursive: true });
    await writeFile(path.join(dir, 'README.md'), 'checkout\n');
    // A job pod: holds the workspace lock of pr-2 (built modules) until killed.
    const script = `const { withWorkspaceLock } = await import(process.argv[1]);
      await withWorkspaceLock(process.argv[2], async () => {
        process.stdout.write('holding\\n');
        await new Promise(() => setInterval(() => undefined, 1000));
      });`;
    const pod = spawn(process.execPath, ['--input-type=module', '-e', script, LOCK_MODULE, dir], {
      env: { PATH: process.env.PATH },
    });
    const exited = new Promise((resolve) => pod.on('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        pod.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('holding')) resolve();
        });
        pod.on('close', () => reject(new Error('the pod process ended early')));
      });
      const cleaner = createWorkspaceCleaner({
        baseDir: base.path,
        platforms,
        intervalHours: 0,
        logger: silentLogger(),
      });
      const first = await cleaner.runOnce();
      expect(first.deleted).toEqual([]);
      expect(first.kept).toEqual([{ dir, reason: 'in use by a job' }]);
      expect(existsSync(path.join(dir, 'README.md'))).toBe(true);

      pod.kill('SIGKILL');
      await exited;
      const second = await cleaner.runOnce();
      expect(second.deleted).toEqual([dir]);
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(`${dir}.lock`)).toBe(false); // the stale lock went with it
    } finally {
      if (pod.exitCode === null) pod.kill('SIGKILL');
    }
  });
});
