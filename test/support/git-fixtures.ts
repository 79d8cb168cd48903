/**
 * Real git repositories for tests: bare repositories laid out as `<root>/<owner>/<repo>.git` (what
 * the fake GitHub serves over smart HTTP), working clones that commit text, binary, deleted and
 * renamed files onto branches and push them, and ready-made pull-request scenarios.
 *
 * git runs with a fixed identity (`-c user.name/-c user.email`) and with global and system config
 * ignored, so a developer's own git settings never change what the tests see. `runGit` is
 * synchronous: never use it to clone from a server running in the same process (the fake GitHub),
 * it would block that server's event loop forever; use `runGitAsync` for that.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export {
  createDiffScenario,
  createManyFilesScenario,
  SCENARIO_PATHS,
  type DiffScenario,
  type ManyFilesScenario,
  type ScenarioFile,
} from './fake-github/git-scenarios.js';

/** Identity and config every git command of the fixtures runs with. */
const GIT_CONFIG = [
  '-c',
  'user.name=Fixture Author',
  '-c',
  'user.email=fixture@example.invalid',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.autocrlf=false',
  '-c',
  'advice.detachedHead=false',
];

/**
 * Environment for git child processes: no global/system config, no prompts.
 * Used by the fixtures and by the fake GitHub so both see the same diff settings.
 */
export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
  };
}

/**
 * Runs `git <args>` in `cwd` synchronously and returns stdout as UTF-8 text.
 * Throws an Error carrying git's stderr when git exits non-zero.
 */
export function runGit(cwd: string, args: string[]): string {
  try {
    return execFileSync('git', [...GIT_CONFIG, ...args], {
      cwd,
      env: gitEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${stderr.trim()}`, { cause: error });
  }
}

/**
 * Runs `git <args>` in `cwd` without blocking the event loop; resolves with stdout (UTF-8).
 * Use this, not `runGit`, for git commands that talk to a server running in the same process
 * (e.g. cloning from the fake GitHub): a synchronous call would deadlock. Rejects with git's
 * stderr in the message when git exits non-zero.
 */
export function runGitAsync(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const options = { cwd, env: gitEnv(), encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024 };
    execFile('git', [...GIT_CONFIG, ...args], options, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`git ${args.join(' ')} failed in ${cwd}: ${stderr.trim()}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/**
 * Creates an empty bare repository at `<root>/<owner>/<repo>.git` (default branch `main`) and
 * returns its path. `fullName` is `owner/repo`; throws when it is not of that form.
 */
export function createBareRepo(root: string, fullName: string): string {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length > 0) throw new Error(`expected owner/repo, got "${fullName}"`);
  const path = join(root, owner, `${repo}.git`);
  mkdirSync(path, { recursive: true });
  runGit(path, ['init', '--bare', '--quiet']);
  runGit(path, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  return path;
}

/**
 * Changes of one commit, applied in this order: renames, deletions, writes. A written `string`
 * is UTF-8 text written as is (no newline added); a `Buffer` is written byte for byte.
 */
export interface FileChanges {
  /** `[from, to]` pairs; the file keeps its content (write `to` too for a rename with an edit). */
  rename?: Array<[string, string]>;
  /** Paths to delete. */
  delete?: string[];
  /** Path → new content. */
  write?: Record<string, string | Buffer>;
}

/** A non-bare clone of a bare repository, for committing and pushing. */
export interface WorkingCopy {
  /** Directory of the clone. */
  readonly dir: string;
  /**
   * Checks out `branch`; creates it from `from` (a branch name or SHA) when given, else from the
   * remote branch of that name. On an empty repository the branch starts as an orphan.
   */
  checkout(branch: string, from?: string): void;
  /** Applies `changes`, commits everything with `message` and returns the new commit SHA. */
  commit(message: string, changes: FileChanges): string;
  /** Pushes `branch` (default: the checked-out branch) to the bare repository, forced. */
  push(branch?: string): void;
  /** SHA of `ref` (default `HEAD`). */
  revParse(ref?: string): string;
}

/** Clones `bareRepoPath` into `dir` (created; must not exist or be empty) and returns a handle. */
export function cloneWorkingCopy(bareRepoPath: string, dir: string): WorkingCopy {
  mkdirSync(dirname(dir), { recursive: true });
  runGit(dirname(dir), ['clone', '--quiet', bareRepoPath, dir]);
  function currentBranch(): string {
    return runGit(dir, ['symbolic-ref', '--short', 'HEAD']).trim();
  }
  function hasCommits(): boolean {
    try {
      runGit(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
      return true;
    } catch {
      return false;
    }
  }
  function remoteHas(branch: string): boolean {
    return runGit(dir, ['branch', '-r', '--list', `origin/${branch}`]).trim() !== '';
  }
  return {
    dir,
    checkout(branch, from) {
      if (from !== undefined) runGit(dir, ['checkout', '--quiet', '-B', branch, from]);
      else if (remoteHas(branch)) runGit(dir, ['checkout', '--quiet', '-B', branch, `origin/${branch}`]);
      else if (hasCommits()) runGit(dir, ['checkout', '--quiet', '-b', branch]);
      else runGit(dir, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
    },
    commit(message, changes) {
      for (const [from, to] of changes.rename ?? []) {
        mkdirSync(dirname(join(dir, to)), { recursive: true });
        renameSync(join(dir, from), join(dir, to));
      }
      for (const path of changes.delete ?? []) rmSync(join(dir, path), { force: true });
      for (const [path, content] of Object.entries(changes.write ?? {})) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
      runGit(dir, ['add', '--all']);
      runGit(dir, ['commit', '--quiet', '--allow-empty', '-m', message]);
      return runGit(dir, ['rev-parse', 'HEAD']).trim();
    },
    push(branch) {
      const name = branch ?? currentBranch();
      runGit(dir, ['push', '--quiet', '--force', 'origin', `refs/heads/${name}:refs/heads/${name}`]);
    },
    revParse(ref = 'HEAD') {
      return runGit(dir, ['rev-parse', ref]).trim();
    },
  };
}

/** Options of `commitToBranch`. */
export interface CommitToBranchOptions {
  /** Branch to commit onto; created from `from` when it does not exist yet. */
  branch: string;
  /** Start point for a new branch (branch name or SHA); ignored when `branch` exists. */
  from?: string;
  message: string;
  changes: FileChanges;
}

/**
 * Commits `changes` onto `branch` of a bare repository through a throw-away clone and pushes it.
 * Returns the new commit SHA. Throws when git fails (e.g. `from` unknown).
 */
export function commitToBranch(bareRepoPath: string, options: CommitToBranchOptions): string {
  const tmp = mkdtempSync(join(dirname(bareRepoPath), '.work-'));
  try {
    const copy = cloneWorkingCopy(bareRepoPath, join(tmp, 'clone'));
    const exists = runGit(copy.dir, ['branch', '-r', '--list', `origin/${options.branch}`]).trim() !== '';
    copy.checkout(options.branch, exists ? undefined : options.from);
    const sha = copy.commit(options.message, options.changes);
    copy.push(options.branch);
    return sha;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
