/**
 * Committing a WORKER's changes in a workspace and pushing them, with the same per-invocation,
 * environment-only credentials as the clone (CONTRACT §4, §8).
 */
import type { GitCredentials } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { GitError } from '../errors.js';
import { assertBranchName, assertSafeCloneUrl, runGit } from './git.js';
import { alternatesProblem } from './alternates.js';
import { inspectLocalConfig, type GitRunner } from './local-config.js';
import { WORKSPACE_GIT_CONFIG, assertWorkspaceGitSafe } from './workspace-guard.js';

/** Options of `commitAndPush`. */
export interface CommitAndPushOptions {
  /** Commit message (any text; passed as one argv element). */
  message: string;
  /** Author and committer name. */
  authorName: string;
  /** Author and committer e-mail. */
  authorEmail: string;
  /**
   * The repository to push to: the clone URL the platform API reports (http/https, no
   * credentials). It is passed explicitly rather than read from the workspace, whose `.git/config`
   * an agent could have pointed elsewhere.
   */
  cloneUrl: string;
  /** Remote branch to push to (`refs/heads/<branch>` of `cloneUrl`). */
  branch: string;
  /** HTTP credentials, given to git through its environment only. */
  credentials: GitCredentials;
  /** Masks further secrets in git error messages. */
  masker?: SecretMasker;
  /** Aborting kills the running git process and rejects with a GitError. */
  signal?: AbortSignal;
  /** Time limit of each git invocation in ms (default 10 minutes). */
  timeoutMs?: number;
}

/** Result of `commitAndPush`: the pushed commit, or nothing to commit (nothing pushed). */
export type CommitAndPushResult = { sha: string } | { nothingToCommit: true };

/**
 * Stages every change in workspace `dir` (`git add -A`: new, modified and deleted files, honouring
 * `.gitignore`), commits it as `authorName <authorEmail>` (hooks and signing off) and pushes
 * `HEAD` to `refs/heads/<branch>` of `cloneUrl` (no force); only the push gets the credentials. Returns `{ nothingToCommit: true }` without
 * committing or pushing when nothing changed.
 *
 * Nothing runs before `assertWorkspaceGitSafe` passed: a workspace holding a repository nested in
 * its tree or a link, named pipe or hard link in `.git` is not committed from (the error says why),
 * and neither is one whose staged tree would gain or change a gitlink (an embedded repository).
 *
 * Throws GitError (secret-free message) for an unsafe workspace (above), an invalid branch name, a `cloneUrl` that is not
 * http(s) or carries credentials, a workspace whose local git configuration holds keys a clone does
 * not write (see `inspectLocalConfig`) or that borrows objects from anywhere but its repository's
 * store (`alternatesProblem`; nothing is committed then), or when a git step fails, e.g. the push is rejected as
 * non-fast-forward or the credentials are refused; the local commit then stays in `dir`.
 */
export async function commitAndPush(
  dir: string,
  options: CommitAndPushOptions,
): Promise<CommitAndPushResult> {
  const base = {
    cwd: dir,
    masker: options.masker,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    config: WORKSPACE_GIT_CONFIG,
  };
  const identity = {
    ...WORKSPACE_GIT_CONFIG,
    'user.name': options.authorName,
    'user.email': options.authorEmail,
  };
  assertSafeCloneUrl(options.cloneUrl);
  assertBranchName(options.branch);
  await assertWorkspaceGitSafe(dir, 'commit the changes');
  const git: GitRunner = (args, cwd) => runGit(args, { ...base, cwd });
  const { untrustedKeys } = await inspectLocalConfig(dir, git);
  if (untrustedKeys.length > 0) {
    throw new GitError(
      `refusing to push from ${dir}: its git configuration was modified (${untrustedKeys.slice(0, 5).join(', ')})`,
    );
  }
  // A push packs objects from wherever the workspace borrows them: only its own repository's store.
  const borrowing = await alternatesProblem(dir);
  if (borrowing !== undefined) throw new GitError(`refusing to push from ${dir}: it ${borrowing}`);
  await runGit(['add', '--all'], base);
  const gitlink = await newGitlink(dir, base);
  if (gitlink !== undefined) {
    throw new GitError(
      `refusing to commit the changes: ${gitlink} would be committed as an embedded repository`,
    );
  }
  const { stdout: status } = await runGit(['status', '--porcelain', '--untracked-files=no'], base);
  if (status.trim() === '') return { nothingToCommit: true };
  await runGit(['commit', '--quiet', '--no-verify', '--cleanup=whitespace', '-m', options.message], {
    ...base,
    config: identity,
  });
  const { stdout: sha } = await runGit(['rev-parse', '--verify', 'HEAD'], base);
  await runGit(['push', '--quiet', '--no-verify', options.cloneUrl, `HEAD:refs/heads/${options.branch}`], {
    ...base,
    credentials: options.credentials,
    credentialUrl: options.cloneUrl,
  });
  return { sha: sha.trim() };
}

/** Gitlink entries (`160000 <sha>\t<path>`) of `ls-files --stage` or `ls-tree -r` output (`-z`). */
function gitlinksOf(listing: string): Set<string> {
  const out = new Set<string>();
  for (const entry of listing.split('\0')) {
    const match = /^160000 (?:commit )?([0-9a-f]+)(?: 0)?\t([^]*)$/.exec(entry);
    if (match) out.add(`${match[1]} ${match[2]}`);
  }
  return out;
}

/**
 * The path of a gitlink the index holds that `HEAD` does not (new, or pointing elsewhere), or
 * undefined. The work tree's nested repositories are refused before anything is staged; this
 * catches an index an agent wrote where `.git` was writable to it.
 */
async function newGitlink(dir: string, base: { cwd: string }): Promise<string | undefined> {
  const [staged, committed] = await Promise.all([
    runGit(['ls-files', '--stage', '-z'], { ...base, cwd: dir }),
    runGit(['ls-tree', '-r', '-z', 'HEAD'], { ...base, cwd: dir }),
  ]);
  const before = gitlinksOf(committed.stdout);
  for (const link of gitlinksOf(staged.stdout))
    if (!before.has(link)) return link.slice(link.indexOf(' ') + 1);
  return undefined;
}

/**
 * The paths the agent changed in workspace `dir` (`git status --porcelain`, untracked files
 * included), after `assertWorkspaceGitSafe` and the local configuration check passed (an agent
 * could have added a filter or fsmonitor command to it); commits the agent made itself (where its
 * `.git` was writable) are undone with `reset --soft` to `baseSha`, so every change is committed
 * by the bot in one commit.
 * @throws GitError when the workspace is unsafe (see `assertWorkspaceGitSafe`), its configuration
 *   was tampered with, or git fails.
 */
export async function listWorkspaceChanges(
  dir: string,
  baseSha: string,
  options: Pick<CommitAndPushOptions, 'masker' | 'signal' | 'timeoutMs'> & {
    onFoldCommits?: (head: string) => void;
  },
): Promise<string[]> {
  const base = {
    cwd: dir,
    masker: options.masker,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    config: WORKSPACE_GIT_CONFIG,
  };
  await assertWorkspaceGitSafe(dir, 'look at the changes');
  const git: GitRunner = (args, cwd) => runGit(args, { ...base, cwd });
  const { untrustedKeys } = await inspectLocalConfig(dir, git);
  if (untrustedKeys.length > 0) {
    throw new GitError(
      `the workspace's git configuration was modified during the job (${untrustedKeys.slice(0, 5).join(', ')}); nothing was pushed`,
    );
  }
  const head = (await runGit(['rev-parse', '--verify', 'HEAD'], base)).stdout.trim();
  if (head !== baseSha) {
    options.onFoldCommits?.(head);
    await runGit(['reset', '--quiet', '--soft', baseSha], base);
  }
  const { stdout } = await runGit(['status', '--porcelain', '--untracked-files=all'], base);
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}
