/**
 * `access.allowed_users` and `access.allowed_repos` entries (CONTRACT §3, §6), tied to a platform
 * or not: `github:alice`, `gitlab:group/project`, `azure-devops:Fabrikam Fiber/widgets` apply on
 * that platform only; a bare entry (`alice`, `acme/widgets`) applies on every platform, as before.
 * The part before the first `:` names a platform only when it is one of the platform names (any
 * letter case): user names may hold a `:` themselves (a Bitbucket Cloud account id
 * `557058:6f1b…`), and `DOMAIN\user` or an e-mail address (Azure DevOps unique names) has none
 * before it. Pure functions, used by the routing of events, by dismissals and by `serve`'s
 * start-up check.
 */
import { PLATFORM_NAMES, type PlatformName } from '../platforms/records.js';

/** The platform names an entry may start with (CONTRACT §4): the registered platforms. */
export const ACCESS_PLATFORMS = PLATFORM_NAMES;

/** One of `ACCESS_PLATFORMS`. */
export type AccessPlatform = PlatformName;

/** An allow-list entry: the platform it is tied to (none: every platform) and the name. */
export interface AccessEntry {
  platform?: AccessPlatform;
  name: string;
}

function isAccessPlatform(name: string): name is AccessPlatform {
  return (ACCESS_PLATFORMS as readonly string[]).includes(name);
}

/**
 * Splits `entry` into its platform and name: `github:alice` → `{platform: 'github', name:
 * 'alice'}`; `alice`, `557058:6f1b` or `DOMAIN\alice` → `{name}` (bare). The platform is matched in
 * any letter case; the name is kept as written.
 */
export function parseAccessEntry(entry: string): AccessEntry {
  const colon = entry.indexOf(':');
  if (colon > 0) {
    const prefix = entry.slice(0, colon).toLowerCase();
    if (isAccessPlatform(prefix)) return { platform: prefix, name: entry.slice(colon + 1) };
  }
  return { name: entry };
}

/**
 * The names of `entries` that apply on `platform`: those tied to it and the bare ones. With no
 * platform (an event of unknown origin) only the bare ones apply.
 */
export function accessNamesFor(entries: readonly string[], platform: string | undefined): string[] {
  const names: string[] = [];
  for (const entry of entries) {
    const parsed = parseAccessEntry(entry);
    if (parsed.platform === undefined || parsed.platform === platform) names.push(parsed.name);
  }
  return names;
}

/**
 * True when `login` may start a job on `platform`: an entry of `allowedUsers` that applies there
 * names it (case-insensitive); an empty list allows nobody. On Bitbucket Cloud (`bitbucket`) an
 * entry `X` also matches the login `{X}`: its authors are `{<account id>}` (its mention form), and
 * an account id is listed as the API reports it, without braces. Elsewhere only the exact login
 * matches (a Data Center username may itself hold braces: `{alice}` must not pass for `alice`).
 */
export function isAllowedUser(login: string, allowedUsers: readonly string[], platform?: string): boolean {
  const lower = login.toLowerCase();
  const braces = platform === 'bitbucket';
  return accessNamesFor(allowedUsers, platform).some((user) => {
    const entry = user.toLowerCase();
    return entry === lower || (braces && `{${entry}}` === lower);
  });
}

/**
 * True when repository `repoFullName` of `platform` may be served: `allowedRepos` is empty (every
 * repository), or one of its entries that applies there names it (case-insensitive). A non-empty
 * list whose entries are all tied to other platforms allows no repository of this one.
 */
export function isAllowedRepo(
  repoFullName: string,
  allowedRepos: readonly string[],
  platform?: string,
): boolean {
  if (allowedRepos.length === 0) return true;
  const repo = repoFullName.toLowerCase();
  return accessNamesFor(allowedRepos, platform).some((allowed) => allowed.toLowerCase() === repo);
}

/**
 * The problem with allow-list entry `entry` of `allowed_repos` (`repos`) or `allowed_users`, or
 * undefined when it is fine: a platform prefix with nothing after it; for repositories, a name that
 * is not `<owner>/<repo>` (or a longer GitLab path) with non-empty parts that have no space at
 * either end, no control character (Azure DevOps names may hold inner spaces).
 */
export function accessEntryProblem(entry: string, kind: 'users' | 'repos'): string | undefined {
  const { platform, name } = parseAccessEntry(entry);
  if (platform !== undefined && name.trim() === '')
    return `"${entry}" names no ${kind === 'users' ? 'user' : 'repository'} after "${platform}:"`;
  if (kind === 'users') return undefined;
  const parts = name.split('/');
  // eslint-disable-next-line no-control-regex
  const badPart = (part: string) => part === '' || part.trim() !== part || /[\x00-\x1f\x7f]/.test(part);
  if (parts.length < 2 || parts.some(badPart)) {
    return `"${entry}" must be <owner>/<repo>, optionally after a platform name and ":" (e.g. github:acme/widgets)`;
  }
  return undefined;
}

/**
 * The start-up warning for allow lists on a server with several platforms (`enabled`, two or
 * more): the bare entries of `allowed_users` and `allowed_repos` apply on every platform, so an
 * account or repository of the same name on another platform passes too. undefined when one
 * platform is enabled or every entry is tied to a platform.
 */
export function bareAccessWarning(
  access: { allowed_users: readonly string[]; allowed_repos: readonly string[] },
  enabled: readonly string[],
): string | undefined {
  if (enabled.length < 2) return undefined;
  const bare = (entries: readonly string[]) =>
    entries.filter((e) => parseAccessEntry(e).platform === undefined);
  const lists = [
    ['access.allowed_users', bare(access.allowed_users)],
    ['access.allowed_repos', bare(access.allowed_repos)],
  ] as const;
  const found = lists.filter(([, entries]) => entries.length > 0);
  if (found.length === 0) return undefined;
  const named = found.map(([key, entries]) => `${key}: ${entries.join(', ')}`).join('; ');
  return (
    `allow-list entries without a platform apply on every enabled platform (${enabled.join(', ')}): ` +
    `the same name on another platform is allowed too (${named}). ` +
    `Tie each to its platform, e.g. ${enabled[0]}:alice or ${enabled[0]}:acme/widgets.`
  );
}
