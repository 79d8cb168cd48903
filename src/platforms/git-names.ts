/**
 * Validators for the git-level names every platform's webhook carries (commit SHAs, branch names,
 * file paths) and for the numbers and URLs the platforms put beside them. Pure predicates, used by
 * each platform's webhook schema so that nothing hostile reaches an API call, a workspace path or
 * a git command. Each rule names its source.
 */

/**
 * A commit id as git prints it: 40 lowercase hex digits (SHA-1), or 64 (SHA-256 repositories,
 * git's `extensions.objectFormat=sha256`). GitHub and GitLab report SHAs in lowercase.
 */
export const COMMIT_SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Largest pull/merge request number: both platforms store them as 32-bit signed integers. */
export const MAX_PR_NUMBER = 2 ** 31 - 1;

/** Longest branch name accepted, in UTF-8 bytes (a ref is a file name on most file systems). */
export const MAX_BRANCH_BYTES = 255;

/** Longest file path accepted in a webhook (characters); git itself has no limit, PATH_MAX is 4096. */
export const MAX_FILE_PATH = 4096;

/** True when `n` is a pull/merge request number: an integer in 1..2^31-1. */
export function isPrNumber(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_PR_NUMBER;
}

/**
 * True when `id` is a platform object id as decimal text: 1..19 digits without a leading zero (ids
 * are positive 64-bit integers on GitHub and GitLab).
 */
export function isDecimalId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 2n ** 63n - 1n;
}

/**
 * True when `name` is a valid branch name, by `git check-ref-format --branch` (git docs,
 * "git-check-ref-format"): no component starts with `.` or ends with `.lock`; no `..`, no ASCII
 * control character, space, `~ ^ : ? * [ \`, no `@{`; not `@`; does not start with `-` or `/`,
 * does not end with `/` or `.`, no `//`. At most 255 UTF-8 bytes.
 */
export function isBranchName(name: string): boolean {
  if (name === '' || name === '@' || Buffer.byteLength(name, 'utf8') > MAX_BRANCH_BYTES) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * True when `path` is a repository-relative file path as platforms report it: not empty, at most
 * 4096 characters, no control character, not absolute, no empty, `.` or `..` segment.
 */
export function isRepoFilePath(path: string): boolean {
  if (path === '' || path.length > MAX_FILE_PATH) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(path)) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * True when `url` is an absolute `http:` or `https:` URL without credentials (a clone URL as the
 * platforms report it; anything else, e.g. `file:` or `ext::`, could make git run or read locally).
 */
export function isHttpUrl(url: string): boolean {
  if (url.length > 2048) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    (parsed.protocol === 'https:' || parsed.protocol === 'http:') && !parsed.username && !parsed.password
  );
}
