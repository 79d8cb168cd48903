/**
 * Bitbucket Cloud's naming rules, applied to CLI references and webhook values before they reach an
 * API URL, a path or a git command.
 *
 * - Workspace ID (Atlassian, "Change the workspace ID"): lowercase letters, digits, `-` and `_`.
 *   Older workspaces (former user accounts) may hold upper-case letters, so case is not enforced.
 * - Repository slug (Atlassian, "Repository slug"): letters, digits, `-`, `_` and `.`, lowercased
 *   by Bitbucket; never `.`/`..`, never ending in `.git`.
 * - Commit hashes: Bitbucket reports 12 hex digits in pull requests and webhooks, 40 elsewhere.
 */
import type { UsernameGrammar } from '../username-grammar.js';

const WORKSPACE = /^[A-Za-z0-9_-]{1,62}$/;
const SLUG = /^[A-Za-z0-9_.-]{1,62}$/;

/** True when `name` is a workspace ID. */
export function isBitbucketWorkspace(name: string): boolean {
  return WORKSPACE.test(name);
}

/** True when `slug` is a repository slug. */
export function isBitbucketSlug(slug: string): boolean {
  return SLUG.test(slug) && slug !== '.' && slug !== '..' && !/\.git$/i.test(slug);
}

/** True when `fullName` is `workspace/slug`. */
export function isBitbucketFullName(fullName: string): boolean {
  const parts = fullName.split('/');
  return parts.length === 2 && isBitbucketWorkspace(parts[0] ?? '') && isBitbucketSlug(parts[1] ?? '');
}

/** True when `hash` is an abbreviated (≥ 7, as Bitbucket's 12) or full commit hash. */
export function isCommitHash(hash: string): boolean {
  return /^[0-9a-f]{7,40}$/.test(hash);
}

/** True when `hash` is a full 40-hex SHA-1. */
export function isFullSha(hash: string): boolean {
  return /^[0-9a-f]{40}$/.test(hash);
}

/**
 * A Bitbucket Cloud name in a mention: a nickname (letters, digits, `_`, `-`, `.`; Atlassian
 * account nicknames) or `{<account id>}`, the form Bitbucket's editor stores in `content.raw` when
 * a user is picked from the mention list (account ids are `557058:<uuid>` or 24 hex digits).
 */
export function isBitbucketMentionName(name: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/.test(name) || /^\{[A-Za-z0-9:-]{1,128}\}$/.test(name);
}

/** After a mention: the end, whitespace, punctuation other than a name character, or `}` closed. */
const MENTION_END = /(?:$|[^A-Za-z0-9_.-]|\.(?:$|[^A-Za-z0-9_-]))/y;

/** Bitbucket Cloud's username grammar for mentions (CONTRACT §6). */
export const BITBUCKET_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || !/[A-Za-z0-9_.@{}-]/.test(text[at - 1] as string),
  endsMention(text, end) {
    if (text[end - 1] === '}') return true;
    MENTION_END.lastIndex = end;
    return MENTION_END.test(text);
  },
  isUsername: isBitbucketMentionName,
};
