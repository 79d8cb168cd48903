/**
 * Reads one file of a pull request's BASE commit through git in the review's workspace (a shallow
 * clone of the head branch): the commit is fetched by SHA (depth 1) when the clone lacks it, then
 * `git show <sha>:<path>`. Rules a pull request is reviewed by (e.g. `.gitattributes`) come from
 * the base commit, never from the head the pull request controls.
 */
import type { GitCredentials } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { runGit } from './git.js';
import { inspectLocalConfig } from './local-config.js';
import { WORKSPACE_GIT_CONFIG, workspaceGitProblem } from './workspace-guard.js';

/** Input of `readBaseFile`. */
export interface ReadBaseFileOptions {
  /** The workspace (a git clone). */
  dir: string;
  /** Full SHA of the base commit. */
  sha: string;
  /** Repository-relative path, e.g. `.gitattributes`. */
  path: string;
  /** Remote to fetch the commit from (the workspace's `origin`) and its credentials. */
  cloneUrl: string;
  credentials: GitCredentials;
  masker?: SecretMasker;
  signal?: AbortSignal;
}

/** Time limit of each git call, ms: reading one small file must not hold a review up. */
const TIMEOUT_MS = 60_000;

/**
 * The file's text at `sha`, or `undefined` when the commit has no such file, the SHA is not a
 * SHA, or the commit cannot be fetched (then the caller proceeds without the file).
 */
export async function readBaseFile(options: ReadBaseFileOptions): Promise<string | undefined> {
  if (!(await ensureCommit(options))) return undefined;
  return runGit(['show', `${options.sha}:${options.path}`], commonOf(options)).then(
    (result) => result.stdout,
    () => undefined,
  );
}

/** Options of git calls in the workspace (no credentials: only a fetch gets them). */
export function commonOf(options: Omit<ReadBaseFileOptions, 'path'>) {
  return {
    cwd: options.dir,
    timeoutMs: TIMEOUT_MS,
    config: WORKSPACE_GIT_CONFIG,
    ...(options.masker ? { masker: options.masker } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Makes sure the workspace holds commit `sha`: fetched by SHA (depth 1; the objects the head shares
 * with it are not sent again, no `FETCH_HEAD` written) when it lacks it. False when the SHA is not
 * a SHA, the workspace is not safe for our git (`workspaceGitProblem`: nothing runs there then;
 * or its `.git/config` holds keys a clone does not write, `inspectLocalConfig`) or the commit
 * cannot be fetched.
 */
export async function ensureCommit(options: Omit<ReadBaseFileOptions, 'path'>): Promise<boolean> {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(options.sha)) return false;
  if ((await workspaceGitProblem(options.dir)) !== undefined) return false;
  const common = commonOf(options);
  const config = await inspectLocalConfig(options.dir, (args, cwd) => runGit(args, { ...common, cwd })).catch(
    () => undefined,
  );
  if (config === undefined || config.untrustedKeys.length > 0) return false;
  const present = await runGit(['cat-file', '-e', `${options.sha}^{commit}`], common).then(
    () => true,
    () => false,
  );
  if (!present) {
    const fetched = await runGit(
      [
        'fetch',
        '--quiet',
        '--depth',
        '1',
        '--no-tags',
        '--no-recurse-submodules',
        '--no-write-fetch-head',
        'origin',
        options.sha,
      ],
      {
        ...common,
        credentials: options.credentials,
        credentialUrl: options.cloneUrl,
      },
    ).then(
      () => true,
      () => false,
    );
    if (!fetched) return false;
  }
  return true;
}
