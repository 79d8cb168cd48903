/**
 * GitHub's naming rules: accounts (owners, logins), repositories, and how a username ends inside
 * comment text. Pure; used by the webhook schema, the CLI's reference parser and the mention rule.
 */
import type { UsernameGrammar } from '../username-grammar.js';

/**
 * An account name (user or organization, the `owner` of `owner/repo`). GitHub's sign-up rule:
 * "Username may only contain alphanumeric characters or single hyphens, and cannot begin or end
 * with a hyphen", at most 39 characters. Enterprise Managed Users carry an `_<shortcode>` suffix
 * (GitHub docs, "Usernames for Enterprise Managed Users"), so a single `_` between alphanumerics is
 * accepted too.
 */
export const GITHUB_OWNER = /^(?=.{1,39}$)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$/;

/**
 * True when `name` is a GitHub repository name: letters, digits, `.`, `_`, `-` (GitHub replaces
 * any other character with `-` on creation), 1..100 characters, not `.` or `..`, and not ending in
 * `.git` (GitHub strips that suffix, so no repository is named so).
 */
export function isGitHubRepoName(name: string): boolean {
  return (
    /^[A-Za-z0-9._-]{1,100}$/.test(name) &&
    name !== '.' &&
    name !== '..' &&
    !name.toLowerCase().endsWith('.git')
  );
}

/** True when `name` is a GitHub account name (see `GITHUB_OWNER`). */
export function isGitHubOwner(name: string): boolean {
  return GITHUB_OWNER.test(name);
}

/** True when `fullName` is `owner/repo` with a valid owner and repository name. */
export function isGitHubFullName(fullName: string): boolean {
  const slash = fullName.indexOf('/');
  if (slash < 0) return false;
  return isGitHubOwner(fullName.slice(0, slash)) && isGitHubRepoName(fullName.slice(slash + 1));
}

/**
 * Where a mention ends (CONTRACT §6, "not followed by a username character"): GitHub usernames hold
 * only letters, digits and hyphens, so the name ends at any other character — `@rb-x` and `@rb2`
 * are other accounts, while `@rb_`, `@rb.`, `@rb.x` and `@rb/` all name `rb`.
 */
const GITHUB_USERNAME_CHAR = /[A-Za-z0-9-]/;

/** GitHub: the character before `@` must be a non-word character or the start of the text. */
const WORD_CHAR = /\w/;

/** GitHub's username grammar for mentions (CONTRACT §6). */
export const GITHUB_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || !WORD_CHAR.test(text[at - 1] as string),
  endsMention: (text, end) => end >= text.length || !GITHUB_USERNAME_CHAR.test(text[end] as string),
  isUsername: (name) => /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(name),
};
