/**
 * Gitea's rules for the owner and repository names of `owner/repo` (Gitea 1.22
 * `modules/validation/helpers.go` `IsValidUsername`; `models/repo/repo.go` `IsUsableRepoName`;
 * Forgejo 7 keeps them). Used by the CLI before any API call puts a name into a URL path.
 */

/** Longest owner (user or organization) name Gitea accepts. */
export const MAX_GITEA_OWNER = 40;
/** Longest repository name Gitea accepts. */
export const MAX_GITEA_REPO = 100;

/**
 * True for a Gitea user/organization name: starts with a letter or digit, then letters, digits,
 * `-`, `_`, `.`; no two of `-_.` in a row and none at the end; at most 40 characters.
 */
export function isGiteaOwnerName(name: string): boolean {
  return name.length <= MAX_GITEA_OWNER && /^[\da-zA-Z][-.\w]*$/.test(name) && !/[-._]{2,}|[-._]$/.test(name);
}

/**
 * True for a Gitea repository name: letters, digits, `-`, `_`, `.`, at most 100 characters; not
 * `.`, `..` or `-`, no `..`, and not ending in `.git`, `.wiki`, `.rss` or `.atom` (reserved).
 */
export function isGiteaRepoName(name: string): boolean {
  return (
    name.length <= MAX_GITEA_REPO &&
    /^[-.\w]+$/.test(name) &&
    !name.includes('..') &&
    name !== '.' &&
    name !== '-' &&
    !/\.(git|wiki|rss|atom)$/i.test(name)
  );
}

/** True for `owner/repo` with both parts valid on Gitea. */
export function isGiteaFullName(fullName: string): boolean {
  const parts = fullName.split('/');
  return parts.length === 2 && isGiteaOwnerName(parts[0] ?? '') && isGiteaRepoName(parts[1] ?? '');
}
