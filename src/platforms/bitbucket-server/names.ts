/**
 * Bitbucket Data Center's naming rules, applied to CLI references and webhook values before they
 * reach an API URL, a path or a git command.
 *
 * - Project key (Atlassian, "Creating projects": "Project keys must start with a letter and may only
 *   consist of ASCII letters, numbers and underscores"; at most 128 characters).
 * - Repository slug (Atlassian REST, `RestRepository.slug`: derived from the name, letters, digits,
 *   `-`, `_` and `.`; at most 128 characters); never `.`/`..`, never ending in `.git`.
 * - Commit hashes: always the full 40 hex digits in pull requests and webhooks.
 * - Usernames: Data Center allows almost any character (e-mail addresses are common); a mention is
 *   stored in comment text as `@name` (the editor quotes a name holding other characters as
 *   `@"name"`: bot usernames are configured without such characters, docs/bitbucket.md).
 */
import type { UsernameGrammar } from '../username-grammar.js';

const PROJECT_KEY = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;
const SLUG = /^[A-Za-z0-9_.-]{1,128}$/;

/** True when `key` is a project key. */
export function isProjectKey(key: string): boolean {
  return PROJECT_KEY.test(key);
}

/** True when `slug` is a repository slug. */
export function isRepositorySlug(slug: string): boolean {
  return SLUG.test(slug) && slug !== '.' && slug !== '..' && !/\.git$/i.test(slug);
}

/** True when `fullName` is `KEY/slug`. */
export function isBitbucketServerFullName(fullName: string): boolean {
  const parts = fullName.split('/');
  return parts.length === 2 && isProjectKey(parts[0] ?? '') && isRepositorySlug(parts[1] ?? '');
}

/** `KEY/slug` as its two parts. */
export function splitFullName(fullName: string): { projectKey: string; repositorySlug: string } {
  const [projectKey = '', repositorySlug = ''] = fullName.split('/');
  return { projectKey, repositorySlug };
}

/** A plain username as it may follow `@` unquoted (the characters that do not end a mention). */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,254}$/;

/** True when `name` is a Data Center username as written unquoted after `@`. */
export function isBitbucketServerMentionName(name: string): boolean {
  return PLAIN_NAME.test(name);
}

/** After a plain mention: the end, or a character no name holds (a final `.` is punctuation). */
const MENTION_END = /(?:$|[^A-Za-z0-9_.@+-]|[.@](?:$|[^A-Za-z0-9_+-]))/y;

/** Bitbucket Data Center's username grammar for mentions (CONTRACT §6). */
export const BITBUCKET_SERVER_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || !/[A-Za-z0-9_.@+"-]/.test(text[at - 1] as string),
  endsMention(text, end) {
    MENTION_END.lastIndex = end;
    return MENTION_END.test(text);
  },
  isUsername: isBitbucketServerMentionName,
};
