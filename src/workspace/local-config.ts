/**
 * The workspace's own `.git/config` is not trusted: a WORKER agent (or a tool it runs) can write it.
 * Before git runs there with credentials we read it and accept only the keys `git clone` writes plus
 * a few harmless ones; anything else (`http.proxy`, `url.*.insteadOf`, `include.path`,
 * `core.sshCommand`, `remote.origin.pushurl`, …) could send the token elsewhere or run a command.
 */
import path from 'node:path';

/**
 * Keys (as `git config --list` prints them: section and name lower-case) a workspace may hold:
 * what `git clone --single-branch --no-tags` writes, `extensions.objectformat` (SHA-256
 * repositories), `core.hookspath` (set by tools such as husky; overridden on every invocation),
 * `core.checkstat`/`core.trustctime` (what a tree sharing the repository's index needs,
 * `shared-index.ts`) and `user.name`/`user.email`.
 */
const TRUSTED_KEY =
  /^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|hookspath|checkstat|trustctime)|remote\.origin\.(url|fetch|tagopt)|branch\..+\.(remote|merge)|extensions\.objectformat|user\.(name|email))$/;

/** What the local configuration of a workspace says about its safety. */
export interface LocalConfigReport {
  /** Every `remote.origin.url` value, in file order (a clone has exactly one). */
  originUrls: string[];
  /** Keys outside the trusted set, in file order, each once. */
  untrustedKeys: string[];
}

/** Runs git (already hardened) in `cwd` and returns its stdout. */
export type GitRunner = (args: string[], cwd: string) => Promise<{ stdout: string }>;

/**
 * Reads the local configuration of the repository at `dir` (`git --git-dir=<dir>/.git config
 * --local --list -z`, includes not followed, so an `include.path` shows up as a key).
 * Rejects with git's GitError when `dir/.git` is not a repository.
 */
export async function inspectLocalConfig(dir: string, git: GitRunner): Promise<LocalConfigReport> {
  const gitDir = path.join(dir, '.git');
  const { stdout } = await git([`--git-dir=${gitDir}`, 'config', '--local', '--list', '-z'], dir);
  const originUrls: string[] = [];
  const untrusted = new Set<string>();
  for (const entry of stdout.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? '' : entry.slice(newline + 1);
    if (key === 'remote.origin.url') originUrls.push(value);
    if (!TRUSTED_KEY.test(key)) untrusted.add(key);
  }
  return { originUrls, untrustedKeys: [...untrusted] };
}
