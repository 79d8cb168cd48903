/**
 * The changes `reviewbot review --local` reviews (CONTRACT §17): everything in the working tree of
 * the current git repository that differs from the merge base of HEAD with a base ref — commits
 * not on the base, staged and unstaged changes (renames found by `git diff -M`), and untracked files
 * that `.gitignore` does not exclude. Read-only: the index, HEAD and the files are never changed.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { GitError, UsageError } from '../errors.js';
import type { PullRequestFile } from '../platforms/types.js';
import { runGit } from '../workspace/git.js';
import { newFilePatch, toPullRequestFiles } from './parse-git-diff.js';

/** Untracked files larger than this (bytes) are listed without a patch, like a truncated diff. */
const MAX_UNTRACKED_BYTES = 1024 * 1024;

/**
 * Where the default base is looked for, in order, after `refs/remotes/origin/HEAD` (the README's
 * `--base` row lists the same, checked by a test).
 */
export const DEFAULT_BASES: readonly string[] = ['main', 'master', 'origin/main', 'origin/master'];

/** The local changes and the commits they are measured against. */
export interface LocalChanges {
  /** Absolute path of the repository's top-level directory (the review's workspace). */
  root: string;
  /** The base as given or found, e.g. `origin/main`. */
  baseRef: string;
  /** Full SHA of the merge base of `baseRef` and HEAD: the diff's left side. */
  mergeBase: string;
  /** Full SHA of HEAD (the working tree may hold more than HEAD). */
  headSha: string;
  /** Current branch name, or `HEAD` when detached. */
  branch: string;
  files: PullRequestFile[];
  /**
   * Every file a clone of the working tree would hold: tracked and untracked-but-not-ignored
   * (`git ls-files -co --exclude-standard`), repository-relative; what the agent may read.
   */
  visibleFiles: string[];
}

/** Options of `collectLocalChanges`. */
export interface CollectOptions {
  /** A directory inside the repository. */
  cwd: string;
  /** `--base REF`; default: `origin/HEAD`, else the first of `DEFAULT_BASES` that exists. */
  base?: string;
  env?: NodeJS.ProcessEnv;
}

type Git = (args: string[]) => Promise<string>;

/** Resolves `ref` to a commit SHA, or undefined when it names none. */
async function commitOf(git: Git, ref: string): Promise<string | undefined> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim() || undefined;
  } catch (error) {
    if (error instanceof GitError) return undefined;
    throw error;
  }
}

async function defaultBase(git: Git): Promise<string | undefined> {
  try {
    const head = (await git(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'])).trim();
    if (head.startsWith('refs/remotes/')) return head.slice('refs/remotes/'.length);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
  }
  for (const candidate of DEFAULT_BASES) if (await commitOf(git, candidate)) return candidate;
  return undefined;
}

/** Untracked, not ignored files, each as an added file with its patch (none for binary/large ones). */
async function untrackedFiles(git: Git, root: string): Promise<PullRequestFile[]> {
  const listed = await git(['ls-files', '--others', '--exclude-standard', '-z']);
  const files: PullRequestFile[] = [];
  for (const name of listed.split('\0').filter((n) => n !== '')) {
    const file: PullRequestFile = { path: name, status: 'added', additions: 0, deletions: 0 };
    const full = path.join(root, name);
    const stat = await lstat(full);
    if (stat.isFile() && stat.size <= MAX_UNTRACKED_BYTES) {
      const bytes = await readFile(full);
      // git's own test for binary content: a NUL byte in the first 8000 bytes.
      if (!bytes.subarray(0, 8000).includes(0)) {
        const patch = newFilePatch(bytes.toString('utf8'));
        if (patch !== undefined) {
          file.patch = patch;
          file.additions = patch.split('\n').filter((l) => l.startsWith('+')).length;
        }
      }
    }
    files.push(file);
  }
  return files;
}

/**
 * Collects the local changes of the repository containing `options.cwd`.
 * @throws UsageError (exit 2) when `cwd` is not in a git repository, HEAD has no commit, the base
 *   names no commit (or none is found), or base and HEAD share no history; GitError when git fails.
 */
export async function collectLocalChanges(options: CollectOptions): Promise<LocalChanges> {
  const run = (cwd: string) => async (args: string[]) =>
    (
      await runGit(['-c', 'core.quotepath=false', ...args], {
        cwd,
        ...(options.env ? { env: options.env } : {}),
      })
    ).stdout;
  let root: string;
  try {
    root = (await run(options.cwd)(['rev-parse', '--show-toplevel'])).trim();
  } catch (error) {
    if (error instanceof GitError) {
      throw new UsageError(`--local needs a git repository: ${options.cwd} is not inside one`);
    }
    throw error;
  }
  const git = run(root);
  const headSha = await commitOf(git, 'HEAD');
  if (!headSha) throw new UsageError('--local needs a commit: this repository has none yet');

  const baseRef = options.base ?? (await defaultBase(git));
  if (baseRef === undefined) {
    throw new UsageError(
      `--local found no base branch (no origin/HEAD, ${DEFAULT_BASES.join(', ')}): pass --base REF`,
    );
  }
  if (baseRef.startsWith('-'))
    throw new UsageError(`invalid --base "${baseRef}": expected a branch, tag or commit`);
  const baseSha = await commitOf(git, baseRef);
  if (!baseSha) {
    throw new UsageError(
      options.base === undefined
        ? `the default base "${baseRef}" names no commit here (fetch it, or pass --base REF)`
        : `invalid --base "${baseRef}": it names no commit in this repository (e.g. origin/main)`,
    );
  }
  let mergeBase: string;
  try {
    mergeBase = (await git(['merge-base', baseSha, headSha])).trim();
  } catch (error) {
    if (error instanceof GitError)
      throw new UsageError(
        `"${baseRef}" and HEAD share no history here (a shallow clone? fetch more, e.g. git fetch --unshallow)`,
      );
    throw error;
  }
  let branch = 'HEAD';
  try {
    branch = (await git(['symbolic-ref', '--quiet', '--short', 'HEAD'])).trim() || 'HEAD';
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
  }

  // The working tree against the merge base: commits, staged and unstaged changes of tracked files.
  // The user's diff config must not change the format parsed here: a submodule as one
  // "Subproject commit" hunk like GitHub shows it (diff.submodule=log/diff prints no `diff --git`
  // header), a space before empty context lines, a/ b/ prefixes, 3 context lines, no colour, no
  // external diff or textconv.
  const config = {
    'diff.suppressBlankEmpty': 'false',
    'diff.noprefix': 'false',
    'diff.mnemonicPrefix': 'false',
    'diff.context': '3',
  };
  const diff = [
    ...Object.entries(config).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    'diff',
    '-M',
    '--submodule=short',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-relative',
  ];
  const [raw, numstat, patch, untracked, listed] = await Promise.all([
    git([...diff, '-z', '--raw', mergeBase]),
    git([...diff, '-z', '--numstat', mergeBase]),
    git([...diff, '--src-prefix=a/', '--dst-prefix=b/', mergeBase]),
    untrackedFiles(git, root),
    git(['ls-files', '--cached', '--others', '--exclude-standard', '-z']),
  ]);
  const files = [...toPullRequestFiles(raw, numstat, patch), ...untracked];
  const visibleFiles = [...new Set(listed.split('\0').filter((name) => name !== ''))];
  return { root, baseRef, mergeBase, headSha, branch, files, visibleFiles };
}
