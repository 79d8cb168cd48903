/**
 * Test fixture for the workspace tests: bare repositories served over real git smart HTTP
 * (`createGitHttpHandler` on a loopback `node:http` server) that demand a token as the password,
 * plus a local working clone per repository to make commits and (force-)pushes with plain git.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile, lstat, readlink, access } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createGitHttpHandler, type GitHttpHandler } from '../../test/support/git-http-server.js';
import { spareBuildsSettled } from './spare-tree.js';
import type { PrepareWorkspaceOptions } from './workspace.js';

const execFileAsync = promisify(execFile);

/** A file tree to commit: path → content, or `null` to delete the path. Scripts (`#!…`) are executable. */
export type FileChanges = Record<string, string | null>;

/** The running fixture. */
export interface GitFixture {
  /** Temp directory holding everything (removed by `close`). */
  root: string;
  /** Directory handed to tests as a workspace base dir. */
  baseDir: string;
  /** Token the server demands as the HTTP password. */
  token: string;
  /** `http://127.0.0.1:<port>/git` */
  baseUrl: string;
  handler: GitHttpHandler;
  /** Creates bare `<fullName>.git` with one commit of `files` on `branch`; returns its clone URL. */
  createRepo(fullName: string, files: FileChanges, branch?: string): Promise<string>;
  /** Commits `changes` on `branch` and pushes (with `force`, the commit replaces the branch history). */
  commit(
    fullName: string,
    changes: FileChanges,
    options?: { branch?: string; force?: boolean },
  ): Promise<string>;
  /** Path of the bare repository of `fullName`. */
  barePath(fullName: string): string;
  /** Path of the fixture's own working clone of `fullName` (commits are made there). */
  workPath(fullName: string): string;
  /** Runs plain git (isolated from user config, no hardening) and returns trimmed stdout. */
  git(cwd: string, ...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Environment for the fixture's own plain git: no user/system config, fixed identity. */
export function plainGitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Fixture',
    GIT_AUTHOR_EMAIL: 'fixture@example.com',
    GIT_COMMITTER_NAME: 'Fixture',
    GIT_COMMITTER_EMAIL: 'fixture@example.com',
    LC_ALL: 'C',
  };
}

/** Starts the fixture server on 127.0.0.1 with a fresh random token. */
export async function startGitFixture(options: { scheme?: 'basic' | 'bearer' } = {}): Promise<GitFixture> {
  const root = await mkdtemp(path.join(tmpdir(), 'reviewbot-ws-test-'));
  const projectRoot = path.join(root, 'remote');
  const baseDir = path.join(root, 'workspaces');
  await mkdir(projectRoot, { recursive: true });
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  const handler = createGitHttpHandler({
    projectRoot,
    password: token,
    prefix: '/git',
    ...(options.scheme ? { scheme: options.scheme } : {}),
  });
  const server: Server = createServer((req, res) => handler.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/git`;
  const env = plainGitEnv(root);

  async function git(cwd: string, ...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  }
  const barePath = (fullName: string) => path.join(projectRoot, `${fullName}.git`);
  const workPath = (fullName: string) => path.join(root, 'work', fullName);

  async function applyChanges(work: string, changes: FileChanges): Promise<void> {
    for (const [file, content] of Object.entries(changes)) {
      const target = path.join(work, file);
      if (content === null) {
        await rm(target, { force: true });
      } else {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, content, { mode: content.startsWith('#!') ? 0o755 : 0o644 });
      }
    }
    await git(work, 'add', '--all');
  }

  async function createRepo(fullName: string, files: FileChanges, branch = 'main'): Promise<string> {
    const bare = barePath(fullName);
    await mkdir(bare, { recursive: true });
    await git(bare, 'init', '--quiet', '--bare', `--initial-branch=${branch}`);
    const work = workPath(fullName);
    await mkdir(work, { recursive: true });
    await git(work, 'init', '--quiet', `--initial-branch=${branch}`);
    await git(work, 'remote', 'add', 'origin', bare);
    await applyChanges(work, files);
    await git(work, 'commit', '--quiet', '-m', 'initial');
    await git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
    return `${baseUrl}/${fullName}.git`;
  }

  async function commit(
    fullName: string,
    changes: FileChanges,
    options: { branch?: string; force?: boolean } = {},
  ): Promise<string> {
    const work = workPath(fullName);
    const branch = options.branch ?? 'main';
    const current = await git(work, 'rev-parse', '--abbrev-ref', 'HEAD');
    if (current !== branch) await git(work, 'checkout', '--quiet', '-B', branch);
    await applyChanges(work, changes);
    if (options.force) await git(work, 'commit', '--quiet', '--amend', '-m', 'rewritten');
    else await git(work, 'commit', '--quiet', '--allow-empty', '-m', 'next');
    await git(
      work,
      'push',
      '--quiet',
      ...(options.force ? ['--force'] : []),
      'origin',
      `HEAD:refs/heads/${branch}`,
    );
    return git(work, 'rev-parse', 'HEAD');
  }

  async function close(): Promise<void> {
    await spareBuildsSettled();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }

  return { root, baseDir, token, baseUrl, handler, createRepo, commit, barePath, workPath, git, close };
}

/** Every regular file under `dir` (symlinks are listed, not followed), as absolute paths. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else out.push(full);
  }
  return out;
}

/** The files under `dir` whose bytes contain `needle` (symlink targets included as their link text). */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const file of await listFiles(dir)) {
    const stat = await lstat(file);
    const bytes = stat.isSymbolicLink() ? Buffer.from(await readlink(file)) : await readFile(file);
    if (bytes.includes(needle)) hits.push(file);
  }
  return hits;
}

/** `prepareWorkspace` options for PR 7 of `acme/widgets` in `fx`, cloned from `cloneUrl` at `main`. */
export function prepareOptions(
  fx: GitFixture,
  cloneUrl: string,
  overrides: Partial<PrepareWorkspaceOptions> = {},
): PrepareWorkspaceOptions {
  return {
    baseDir: fx.baseDir,
    platform: 'github',
    repoFullName: 'acme/widgets',
    prNumber: 7,
    cloneUrl,
    branch: 'main',
    credentials: { username: 'x-access-token', password: fx.token },
    ...overrides,
  };
}

/** True when `file` exists. */
export async function pathExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
