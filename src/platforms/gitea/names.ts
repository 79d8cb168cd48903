/**
 * Gitea's (and Forgejo's) naming rules: users and organizations (the `owner` of `owner/repo`),
 * repositories, full names, and how a username ends inside comment text. Pure; used by the webhook
 * schema, the Actions event reader, the API client and the mention rule. Sources (Gitea 1.22+,
 * Forgejo 7+ keep the same rules): `modules/validation/helpers.go` `IsValidUsername`,
 * `models/repo/repo.go` `IsUsableRepoName`, the forms' `MaxSize` bindings, and
 * `modules/references/references.go` `mentionPattern`.
 */
import type { UsernameGrammar } from '../username-grammar.js';

/** Longest user or organization name (`CreateUserForm`/`CreateOrgForm`: `MaxSize(40)`). */
export const MAX_GITEA_OWNER = 40;
/** Longest repository name (`CreateRepoForm`: `MaxSize(100)`). */
export const MAX_GITEA_REPO = 100;

/** `validUsernamePattern`: starts with a letter or digit, then letters, digits, `-`, `.`, `_`. */
const VALID_USERNAME = /^[0-9A-Za-z][-.\w]*$/;
/** `invalidUsernamePattern`: no two `-._` in a row, none at the end. */
const INVALID_USERNAME = /[-._]{2,}|[-._]$/;

/**
 * True when `name` is a Gitea user or organization name (`IsValidUsername`): ASCII letters,
 * digits, `-`, `_`, `.`; starts with a letter or digit; no two of `-._` in a row and none last;
 * 1..40 characters. Examples: `rb.bot`, `rb-bot`, `rb_bot` are valid; `rb.`, `rb..x`, `-rb` are not.
 */
export function isGiteaUsername(name: string): boolean {
  return name.length <= MAX_GITEA_OWNER && VALID_USERNAME.test(name) && !INVALID_USERNAME.test(name);
}

/** `reservedRepoPatterns`: suffixes Gitea routes itself (compared in lower case). */
const RESERVED_REPO_SUFFIXES = ['.git', '.wiki', '.rss', '.atom'];
/** `reservedRepoNames`. */
const RESERVED_REPO_NAMES = new Set(['.', '..', '-']);

/**
 * True when `name` is a Gitea repository name (`IsUsableRepoName` with the `AlphaDashDot` form
 * binding): ASCII letters, digits, `-`, `_`, `.`, 1..100 characters, no `..`, not `.`, `..` or
 * `-`, and not ending in `.git`, `.wiki`, `.rss` or `.atom` (any case).
 */
export function isGiteaRepoName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_GITEA_REPO) return false;
  if (!/^[-.\w]+$/.test(name) || name.includes('..')) return false;
  const lower = name.toLowerCase();
  return !RESERVED_REPO_NAMES.has(lower) && !RESERVED_REPO_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** True when `fullName` is `owner/repo` with a valid Gitea owner and repository name. */
export function isGiteaFullName(fullName: string): boolean {
  const parts = fullName.split('/');
  return parts.length === 2 && isGiteaUsername(parts[0]!) && isGiteaRepoName(parts[1]!);
}

/**
 * What may precede the `@` of a mention in Gitea's `mentionPattern`: the start of the text,
 * whitespace (Go's `\s`: tab, newline, form feed, carriage return, space), `(` or `[`.
 */
const MENTION_START = /[\t\n\f\r ([]/;

/**
 * What must follow a mentioned name in Gitea's `mentionPattern`: the end of the text, `'`,
 * whitespace, `)`, `]`, or one of `:,;.?!` followed by whitespace or the end. So `@rb.` and
 * `@rb, hi` name `rb`, while `@rb.bot`, `@rb-x`, `@rb_x` name other users and `@rb/x` no one.
 */
const MENTION_END = /(?:$|['\t\n\f\r )\]]|[:,;.?!](?:$|[\t\n\f\r ]))/y;

/** Gitea's username grammar for mentions (CONTRACT §6). */
export const GITEA_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || MENTION_START.test(text[at - 1] as string),
  endsMention(text, end) {
    MENTION_END.lastIndex = end;
    return MENTION_END.test(text);
  },
  isUsername: isGiteaUsername,
};
