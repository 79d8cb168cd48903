/**
 * Running git safely (CONTRACT §4, §11): every invocation gets a scrubbed environment, ignores the
 * user's and the system's git configuration, runs no hooks, refuses `file://` transports, and —
 * when credentials are given — receives them only through two environment variables of that one
 * child process, read by a `credential.helper` set through git's env-based configuration
 * (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, git >= 2.31). A header credential
 * (`authorization`: Bitbucket Data Center's Bearer token, Azure DevOps' Basic PAT) goes the same
 * way as an `http.<origin>.extraHeader` entry of that environment instead. Nothing secret is ever put in a URL, in argv, in `.git/config`
 * or in any other file.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { GitError } from '../errors.js';
import type { GitCredentials } from '../platforms/types.js';
import { SecretMasker, isSecretEnvName, scrubbedEnv } from '../secrets.js';

/** Default time limit of one git invocation: 10 minutes, in ms. */
export const DEFAULT_GIT_TIMEOUT_MS = 10 * 60 * 1000;

/** Environment variables that carry the credentials to the helper; set only on one git child. */
const USERNAME_VAR = 'REVIEWBOT_GIT_USERNAME';
const PASSWORD_VAR = 'REVIEWBOT_GIT_PASSWORD';

/**
 * The credential helper: answers `get` with the two variables of its own environment and ignores
 * `store`/`erase`. It drains stdin so git never writes into a closed pipe.
 */
const CREDENTIAL_HELPER =
  `!f() { cat >/dev/null; test "$1" = get || exit 0; ` +
  `echo "username=\${${USERNAME_VAR}}"; echo "password=\${${PASSWORD_VAR}}"; }; f`;

/** Non-secret variables git itself may need (proxies, CA bundles), passed through when set. */
const GIT_PASSTHROUGH_ENV = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
];

/** Options of `runGit`. */
export interface RunGitOptions {
  /** Working directory of the git process (must exist). */
  cwd: string;
  /** HTTP credentials, handed to git through its environment only. */
  credentials?: GitCredentials;
  /**
   * When set (an `http(s)://host[:port]` URL), the credential helper is scoped to that origin, so
   * the token is never offered to another host (a redirect, a submodule URL).
   */
  credentialUrl?: string;
  /** Extra non-secret configuration for this invocation (e.g. `user.name`), applied last. */
  config?: Record<string, string>;
  /** Kills git (the whole process group) after this many ms. Default 10 minutes. */
  timeoutMs?: number;
  /** Masks known secrets in git's output before it reaches an error message. */
  masker?: SecretMasker;
  /** Aborting kills git and rejects with a GitError. */
  signal?: AbortSignal;
  /** Base environment the safe variables are taken from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * The only object directory git reads and writes (`GIT_OBJECT_DIRECTORY`, git(1)): a workspace
   * update names its store's, so no object an agent planted in the workspace's `.git/objects` is
   * checked out.
   */
  objectDirectory?: string;
}

/**
 * Observers of finished git invocations (benchmarks profile where time goes): each is called with
 * the subcommand (the first argument that is not an option) and the wall time in ms, success or not.
 */
const gitRunObservers = new Set<(subcommand: string, ms: number) => void>();

/** Calls `observer` after every `runGit` invocation ends; returns a function that stops it. */
export function observeGitRuns(observer: (subcommand: string, ms: number) => void): () => void {
  gitRunObservers.add(observer);
  return () => gitRunObservers.delete(observer);
}

/** What a successful git invocation printed (stdout and stderr as UTF-8 text). */
export interface RunGitResult {
  stdout: string;
  stderr: string;
}

/**
 * The configuration every invocation gets, as ordered `[key, value]` pairs (command scope, so
 * they beat the repository's own `.git/config`): credential helpers reset (then ours, when
 * `credentials` are given), hooks off, only the http and https transports (`file://`, ssh, `ext::`
 * refused), TLS verification on, no submodule recursion, no fsmonitor, no automatic
 * gc/maintenance (workspaces are short-lived; an automatic gc would stall a job for seconds) and no
 * commit signing. `options.config` comes last, so trusted callers can override any of these.
 */
export function gitConfigEntries(
  options: Pick<RunGitOptions, 'credentials' | 'credentialUrl' | 'config'>,
): [string, string][] {
  const entries: [string, string][] = [
    ['credential.helper', ''],
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['protocol.allow', 'never'],
    ['protocol.http.allow', 'always'],
    ['protocol.https.allow', 'always'],
    ['protocol.file.allow', 'never'],
    ['http.sslVerify', 'true'],
    ['submodule.recurse', 'false'],
    ['fetch.recurseSubmodules', 'false'],
    ['push.recurseSubmodules', 'no'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgSign', 'false'],
  ];
  if (options.credentials?.authorization) {
    // A header credential (Azure DevOps Basic, Bitbucket Data Center Bearer): sent with every request to the clone URL's origin only,
    // through this child's environment (`http.<url>.extraHeader`, git docs "http.extraHeader").
    const scope = options.credentialUrl ? `${originOf(options.credentialUrl)}/.` : '';
    entries.push([`http.${scope}extraHeader`, `Authorization: ${options.credentials.authorization}`]);
  } else if (options.credentials) {
    const scope = options.credentialUrl ? `${originOf(options.credentialUrl)}.` : '';
    entries.push([`credential.${scope}helper`, CREDENTIAL_HELPER]);
  }
  for (const [key, value] of Object.entries(options.config ?? {})) entries.push([key, value]);
  return entries;
}

/**
 * Builds the environment of one git child: `scrubbedEnv` of `base` (HOME = the OS temp dir), the
 * proxy/CA variables git may need, user/system config ignored, prompts off, C locale, replace refs
 * ignored (`GIT_NO_REPLACE_OBJECTS`), the
 * configuration of `gitConfigEntries`, and the two credential variables when `credentials` are given.
 */
export function buildGitEnv(
  options: Pick<RunGitOptions, 'credentials' | 'credentialUrl' | 'config' | 'env' | 'objectDirectory'>,
): NodeJS.ProcessEnv {
  const base = options.env ?? process.env;
  const env = scrubbedEnv(base, tmpdir());
  for (const name of GIT_PASSTHROUGH_ENV) {
    const value = base[name];
    if (value !== undefined && !isSecretEnvName(name)) env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = '/dev/null';
  env.LC_ALL = 'C';
  // A workspace's `.git/refs/replace` is an agent's to write: replacements must never change what
  // our checkouts, commits or pushes contain (git-replace(1)).
  env.GIT_NO_REPLACE_OBJECTS = '1';
  if (options.objectDirectory !== undefined) env.GIT_OBJECT_DIRECTORY = options.objectDirectory;
  const entries = gitConfigEntries(options);
  env.GIT_CONFIG_COUNT = String(entries.length);
  for (const [index, [key, value]] of entries.entries()) {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  }
  if (options.credentials && !options.credentials.authorization) {
    env[USERNAME_VAR] = options.credentials.username;
    env[PASSWORD_VAR] = options.credentials.password;
  }
  return env;
}

/** `protocol://host[:port]` of an http(s) URL, as git's `credential.<url>` matching expects. */
function originOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Checks a clone URL: it must be `http:` or `https:`, hold no control character and must not carry credentials
 * (`https://user:pw@host/...`). Throws GitError otherwise; the message never repeats the URL's
 * user-info.
 */
export function assertSafeCloneUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GitError('invalid clone URL (expected an http(s) URL)');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new GitError(
      `refusing a clone URL that contains credentials (${parsed.protocol}//***@${parsed.host}); ` +
        'git receives credentials from its environment only',
    );
  }
  // The WHATWG parser drops tabs and newlines silently; git would keep them (and a newline in a
  // value would end it in `.git/config`).
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(url)) throw new GitError('invalid clone URL (control characters)');
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new GitError(`unsupported clone URL scheme ${parsed.protocol} (expected http or https)`);
  }
}

/**
 * Git's branch-name rules (git-check-ref-format(1)) that matter for argv and refspec safety: no
 * leading `-`, no `..`, `@{`, whitespace, control characters or `~^:?*[\`, no trailing `/`, `.` or `.lock`.
 * Throws GitError naming the rejected name.
 */
export function assertBranchName(branch: string): void {
  const bad =
    branch === '' ||
    branch.startsWith('-') ||
    branch.startsWith('/') ||
    branch.endsWith('/') ||
    branch.endsWith('.') ||
    branch.endsWith('.lock') ||
    branch.includes('..') ||
    branch.includes('@{') ||
    branch.includes('//') ||
    // eslint-disable-next-line no-control-regex
    /[\s\x00-\x1f\x7f~^:?*[\\]/.test(branch);
  if (bad) throw new GitError(`invalid branch name ${JSON.stringify(branch)}`);
}

/**
 * The git subcommand of `args` (the first argument that is not an option or the value of `-c`/`-C`),
 * for error messages.
 */
function subcommandOf(args: string[]): string {
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '-c' || args[i] === '-C') i += 1;
    else if (!args[i]!.startsWith('-')) return args[i]!;
  }
  return 'git';
}

/** The last `maxChars` characters of git's trimmed stderr, one line per message. */
function tailOf(text: string, maxChars = 2000): string {
  const trimmed = text.trim();
  return trimmed.length > maxChars ? `…${trimmed.slice(-maxChars)}` : trimmed;
}

/**
 * Runs `git <args>` in `options.cwd` with the hardened environment of `buildGitEnv`.
 * Resolves with git's output when it exits 0. Rejects with GitError — naming the subcommand, the
 * exit code and git's stderr with every secret (the password, plus `options.masker`'s) masked —
 * when git exits non-zero, cannot start, exceeds `timeoutMs` or is aborted by `signal`; in the last
 * two cases git's whole process group is killed (SIGKILL).
 */
export function runGit(args: string[], options: RunGitOptions): Promise<RunGitResult> {
  const subcommand = subcommandOf(args);
  const masker = new SecretMasker([
    options.credentials?.password ?? '',
    options.credentials?.authorization ?? '',
  ]);
  const mask = (text: string) => masker.mask(options.masker ? options.masker.mask(text) : text);
  const timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const started = performance.now();
  return new Promise<RunGitResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new GitError(`git ${subcommand} aborted before it started`));
      return;
    }
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: buildGitEnv(options),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stopReason: string | undefined;
    const kill = (reason: string) => {
      if (stopReason !== undefined) return;
      stopReason = reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill(`timed out after ${timeoutMs} ms`), timeoutMs);
    const onAbort = () => kill('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      finish();
      reject(new GitError(`git ${subcommand} could not start: ${mask(error.message)}`));
    });
    child.on('close', (code, signal) => {
      finish();
      for (const observer of gitRunObservers) observer(subcommand, performance.now() - started);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (stopReason !== undefined) {
        reject(new GitError(`git ${subcommand} ${stopReason}`));
      } else if (code === 0) {
        resolve({ stdout: out, stderr: err });
      } else {
        const status = code === null ? `signal ${signal ?? 'unknown'}` : `exit code ${code}`;
        const detail = tailOf(mask(err));
        reject(new GitError(`git ${subcommand} failed (${status})${detail ? `: ${detail}` : ''}`));
      }
    });
  });
}
