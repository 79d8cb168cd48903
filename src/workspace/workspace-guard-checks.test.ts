/**
 * `workspaceGitProblem` entry by entry, on a repository made by `git init` in a workspace directory
 * (`<base>/github/acme/widgets/pr-1`, no server): what it lets through, what it refuses, and the
 * exact reason the requester reads. The attacks themselves, followed by the git runs they aimed
 * at, are in `workspace-guard.test.ts`.
 */
import { execFileSync } from 'node:child_process';
import { chmod, chown, link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import { runGit } from './git.js';
import { sharedIndexDir } from './shared-index.js';
import {
  WORKSPACE_GIT_CONFIG,
  assertWorkspaceGitSafe,
  removeWorkTree,
  workspaceGitProblem,
} from './workspace-guard.js';

const isRoot = process.getuid?.() === 0;
const HASH = 'a'.repeat(40);

let base: string;
let repoDir: string;
let dir: string;
let gitDir: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'rb-guard-'));
  repoDir = path.join(base, 'github', 'acme', 'widgets');
  dir = path.join(repoDir, 'pr-1');
  await mkdir(dir, { recursive: true });
  execFileSync('git', ['init', '--quiet', dir]);
  gitDir = path.join(dir, '.git');
});
afterEach(async () => {
  // A tree deeper than the path limit is beyond `fs.rm`.
  await removeWorkTree(base);
});

/** Makes a chain of `depth` directories `aaaaaaaaaa/…` in `under` (relative steps: past PATH_MAX). */
function deepTree(under: string, depth: number): void {
  execFileSync(
    'sh',
    ['-c', `i=0; while [ $i -lt ${depth} ]; do mkdir aaaaaaaaaa && cd aaaaaaaaaa || break; i=$((i+1)); done`],
    { cwd: under, stdio: 'ignore' },
  );
}

describe('.git itself', () => {
  it('passes a repository git made, and refuses nothing in it', async () => {
    await writeFile(path.join(dir, 'a.txt'), 'a\n');
    expect(await workspaceGitProblem(dir)).toBeUndefined();
    await expect(assertWorkspaceGitSafe(dir, 'commit the changes')).resolves.toBeUndefined();
  });

  it('refuses a workspace without .git', async () => {
    await rm(gitDir, { recursive: true });
    expect(await workspaceGitProblem(dir)).toBe('.git is missing');
  });

  it.each([
    ['a gitfile', () => writeFile(gitDir, `gitdir: ${path.join(base, 'elsewhere')}\n`)],
    ['a link to a repository elsewhere', () => symlink(path.join(base, 'elsewhere'), gitDir)],
  ])('refuses a .git that is %s', async (_name, plant) => {
    execFileSync('git', ['init', '--quiet', path.join(base, 'elsewhere')]);
    await rm(gitDir, { recursive: true });
    await plant();
    expect(await workspaceGitProblem(dir)).toBe('.git is not a directory');
  });

  it.skipIf(!isRoot)('refuses a .git another user owns', async () => {
    await chown(gitDir, 4242, 4242);
    expect(await workspaceGitProblem(dir)).toBe('.git belongs to another user');
  });

  it('names the action and the reason when refusing', async () => {
    await rm(gitDir, { recursive: true });
    const error = await assertWorkspaceGitSafe(dir, 'commit the changes').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toBe(
      "refusing to commit the changes: .git is missing (the bot's own git never enters a repository or follows a link or pipe an agent made in the workspace)",
    );
  });
});

describe('entries of .git', () => {
  it.each([
    ['COMMIT_EDITMSG', '.git/COMMIT_EDITMSG is a symbolic link'],
    ['refs/remotes', '.git/refs/remotes is a symbolic link'],
    ['refs/heads/main', '.git/refs/heads/main is a symbolic link'],
  ])('refuses a symbolic link at .git/%s', async (name, reason) => {
    await symlink(path.join(base, 'victim'), path.join(gitDir, name));
    expect(await workspaceGitProblem(dir)).toBe(reason);
  });

  it('refuses a named pipe', async () => {
    await rm(path.join(gitDir, 'HEAD'));
    execFileSync('mkfifo', [path.join(gitDir, 'HEAD')]);
    expect(await workspaceGitProblem(dir)).toBe('.git/HEAD is a named pipe');
  });

  it('refuses a socket', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(gitDir, 'refs', 'sock'), resolve));
    try {
      expect(await workspaceGitProblem(dir)).toBe('.git/refs/sock is a socket');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(!isRoot)('refuses a device', async () => {
    execFileSync('mknod', [path.join(gitDir, 'index'), 'c', '1', '3']);
    expect(await workspaceGitProblem(dir)).toBe('.git/index is a device');
  });

  it('refuses a file hard-linked to one elsewhere, deep in .git too', async () => {
    await writeFile(path.join(base, 'victim'), 'v\n');
    await link(path.join(base, 'victim'), path.join(gitDir, 'info', 'attributes'));
    expect(await workspaceGitProblem(dir)).toBe('.git/info/attributes is a hard link');
  });

  it('lets objects be hard links (a local clone shares them), they are only ever read', async () => {
    await writeFile(path.join(base, 'pack'), 'p\n');
    await link(path.join(base, 'pack'), path.join(gitDir, 'objects', 'pack', 'pack-1.pack'));
    expect(await workspaceGitProblem(dir)).toBeUndefined();
  });

  it('refuses a directory of .git it cannot read (deeper than the path limit)', async () => {
    deepTree(gitDir, 420);
    expect(await workspaceGitProblem(dir)).toMatch(/^\.git\/(aaaaaaaaaa\/)+aaaaaaaaaa cannot be read$/);
  });

  it.skipIf(isRoot)('refuses a directory of .git made unreadable', async () => {
    await chmod(path.join(gitDir, 'refs'), 0o000);
    try {
      expect(await workspaceGitProblem(dir)).toBe('.git/refs cannot be read');
    } finally {
      await chmod(path.join(gitDir, 'refs'), 0o755);
    }
  });
});

describe('shared-index links in .git', () => {
  const shared = (name: string) => path.join(sharedIndexDir(repoDir), name);

  it.each([`sharedindex.${HASH}`, `sharedindex.${'b'.repeat(64)}`])(
    'lets %s link to the file of that name in its repository’s store',
    async (name) => {
      await symlink(shared(name), path.join(gitDir, name));
      expect(await workspaceGitProblem(dir)).toBeUndefined();
    },
  );

  it('refuses one linked anywhere else', async () => {
    await symlink(
      path.join(base, 'elsewhere', `sharedindex.${HASH}`),
      path.join(gitDir, `sharedindex.${HASH}`),
    );
    expect(await workspaceGitProblem(dir)).toBe('shares an index from another place');
  });

  it.each([
    [`refs/sharedindex.${HASH}`, 'below .git’s top level'],
    [`sharedindex.${'a'.repeat(39)}`, 'a short hash'],
    [`sharedindex.${'A'.repeat(40)}`, 'an upper-case hash'],
    [`sharedindex.${HASH}.lock`, 'a suffix'],
    [`x-sharedindex.${HASH}`, 'a prefix'],
  ])('refuses a link named %s (%s) as any other link', async (name) => {
    await symlink(shared(path.basename(name)), path.join(gitDir, name));
    expect(await workspaceGitProblem(dir)).toBe(`.git/${name} is a symbolic link`);
  });
});

describe('the work tree', () => {
  it.each([
    ['sub/.git', 'the work tree holds a git repository at sub/.git'],
    ['deep/er/.GIT', 'the work tree holds a git repository at deep/er/.GIT'],
  ])('refuses a nested repository at %s', async (name, reason) => {
    await mkdir(path.join(dir, name), { recursive: true });
    expect(await workspaceGitProblem(dir)).toBe(reason);
  });

  it('refuses a named pipe, naming it as such', async () => {
    await mkdir(path.join(dir, 'deep'));
    execFileSync('mkfifo', [path.join(dir, 'deep', '.gitignore')]);
    expect(await workspaceGitProblem(dir)).toBe('the work tree holds a named pipe at deep/.gitignore');
  });

  it.skipIf(!isRoot)('refuses a device, naming it as such', async () => {
    execFileSync('mknod', [path.join(dir, 'null'), 'c', '1', '3']);
    expect(await workspaceGitProblem(dir)).toBe('the work tree holds a device at null');
  });

  it('passes links, a .gitignore and a .git-like name in the tree', async () => {
    await symlink('/etc', path.join(dir, 'link'));
    await writeFile(path.join(dir, '.gitignore'), 'x\n');
    await mkdir(path.join(dir, '.github'));
    await writeFile(path.join(dir, 'x.git'), 'x\n');
    expect(await workspaceGitProblem(dir)).toBeUndefined();
  });
});

describe('WORKSPACE_GIT_CONFIG', () => {
  const git = (args: string[], cwd = dir) =>
    runGit(args, { cwd, config: WORKSPACE_GIT_CONFIG, timeoutMs: 30_000 }).then((r) => r.stdout);

  it('reads no attributes file outside the repository, even one .git/config names', async () => {
    await writeFile(path.join(base, 'attributes'), '* text=auto diff=planted\n');
    execFileSync('git', ['config', 'core.attributesFile', path.join(base, 'attributes')], { cwd: dir });
    await writeFile(path.join(dir, 'f'), 'f\n');
    expect(await git(['check-attr', 'diff', '--', 'f'])).toBe('f: diff: unspecified\n');
  });

  it('never looks into a submodule, whatever .git/config says', async () => {
    const sub = path.join(dir, 'sub');
    execFileSync('git', ['init', '--quiet', sub]);
    const commit = (cwd: string, ...files: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'm', ...files],
        {
          cwd,
        },
      );
    await writeFile(path.join(sub, 'f'), 'f\n');
    execFileSync('git', ['add', 'f'], { cwd: sub });
    commit(sub);
    execFileSync('git', ['add', 'sub'], { cwd: dir });
    commit(dir);
    // The submodule's work tree changes, and its HEAD moves: git would report both by looking in.
    await writeFile(path.join(sub, 'f'), 'changed\n');
    await writeFile(path.join(sub, 'g'), 'g\n');
    execFileSync('git', ['add', 'g'], { cwd: sub });
    commit(sub);
    execFileSync('git', ['add', 'sub'], { cwd: dir });
    execFileSync('git', ['config', 'diff.ignoreSubmodules', 'none'], { cwd: dir });
    execFileSync('git', ['config', 'status.submoduleSummary', 'true'], { cwd: dir });
    expect(await git(['diff', '--name-only', 'HEAD'])).toBe('');
    expect(await git(['status'])).not.toMatch(/Submodule|modified content/);
  });
});
