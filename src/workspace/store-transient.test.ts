/**
 * The object store (CONTRACT §19) through a transient network failure: a server that cuts the
 * connection in the middle of the pack once must not make the store be removed (other pull
 * requests' trees borrow its objects); and a damaged store is not removed while another tree of
 * the repository is in use.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import {
  pathExists,
  prepareOptions,
  startGitFixture,
  type FileChanges,
  type GitFixture,
} from './git-fixture.test-helper.js';
import { withWorkspaceLock } from './lock.js';
import { prepareWorkspace } from './workspace.js';
import { storePaths } from './workspace-path.js';

let fx: GitFixture;

beforeEach(async () => {
  fx = await startGitFixture();
});
afterEach(async () => {
  await fx.close();
});

/** 200 files of 2 KiB of random hex each: a pack of a few hundred KiB. */
function bigTree(): FileChanges {
  const files: FileChanges = {};
  for (let i = 0; i < 200; i += 1) files[`src/f${i}.txt`] = `${randomBytes(1024).toString('hex')}\n`;
  return files;
}

/**
 * Makes the fixture server cut the connection (socket destroyed) once, after `bytes` bytes of an
 * upload-pack response body: git sees the pack end early, as with a dropped proxy or node.
 * Returns a function telling whether the cut happened.
 */
function cutOnce(bytes: number): () => boolean {
  const handle = fx.handler.handle;
  let cut = false;
  fx.handler.handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!cut && req.method === 'POST' && (req.url ?? '').endsWith('/git-upload-pack')) {
      let sent = 0;
      const write = res.write.bind(res) as (chunk: Buffer) => boolean;
      (res as unknown as { write: (chunk: Buffer) => boolean }).write = (chunk: Buffer) => {
        if (cut) return true;
        sent += chunk.length;
        if (sent > bytes) {
          cut = true;
          res.socket?.destroy();
          return true;
        }
        return write(chunk);
      };
    }
    handle(req, res);
  };
  return () => cut;
}

describe('repository object store and a transient fetch failure', () => {
  it('keeps the store when the connection is cut mid-pack; sibling trees stay usable', async () => {
    const url = await fx.createRepo('acme/widgets', bigTree());
    const sibling = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    const main = await fx.git(fx.barePath('acme/widgets'), 'rev-parse', 'main');
    const head8 = await fx.commit('acme/widgets', bigTree(), { branch: 'feature' });
    const { gitDir } = storePaths(path.join(fx.baseDir, 'github/acme/widgets'));
    const marker = path.join(gitDir, 'description');
    await writeFile(marker, 'the store of acme/widgets\n'); // gone if the store were rebuilt

    const wasCut = cutOnce(64 * 1024);
    const progress: string[] = [];
    const opts = prepareOptions(fx, url, { prNumber: 8, branch: 'feature' });
    const result = await prepareWorkspace({ ...opts, onProgress: (m) => progress.push(m) });
    expect(wasCut()).toBe(true);
    expect(progress.join('\n')).not.toMatch(/rebuilding/);
    expect(await pathExists(marker)).toBe(true);
    expect(result.headSha).toBe(head8);
    // The sibling borrows the same store: its objects are all still there.
    expect(await fx.git(sibling.dir, 'status', '--porcelain')).toBe('');
    expect(await fx.git(sibling.dir, 'log', '-1', '--format=%H')).toBe(main);
    expect(await fx.git(sibling.dir, 'cat-file', '-p', 'HEAD^{tree}')).toContain('src');
    // The next fetch works as usual.
    await fx.commit('acme/widgets', { 'src/f1.txt': 'next\n' }, { branch: 'feature' });
    const next = await prepareWorkspace(opts);
    expect(next.action).toBe('updated');
    expect(await pathExists(marker)).toBe(true);
  });

  it('never removes a damaged store while another tree of the repository is in use', async () => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    await prepareWorkspace(prepareOptions(fx, url, { prNumber: 7 }));
    await fx.commit('acme/widgets', { 'b.txt': 'b\n' }, { branch: 'feature' });
    const { gitDir } = storePaths(path.join(fx.baseDir, 'github/acme/widgets'));
    await rm(path.join(gitDir, 'HEAD')); // no longer a repository to git
    const marker = path.join(gitDir, 'description');
    await writeFile(marker, 'the store of acme/widgets\n');

    const pr7 = path.join(fx.baseDir, 'github/acme/widgets/pr-7');
    const failure = await withWorkspaceLock(pr7, () =>
      prepareWorkspace(prepareOptions(fx, url, { prNumber: 8, branch: 'feature' })).catch((e: unknown) => e),
    );
    expect(failure).toBeInstanceOf(GitError);
    expect((failure as GitError).message).toMatch(/in use/);
    expect(await pathExists(marker)).toBe(true);
    // With no other tree in use, the damaged store is rebuilt.
    const result = await prepareWorkspace(prepareOptions(fx, url, { prNumber: 8, branch: 'feature' }));
    expect(await fx.git(result.dir, 'status', '--porcelain')).toBe('');
    expect(await pathExists(marker)).toBe(false);
  });
});
