/**
 * Azure DevOps' naming rules, applied to CLI references and webhook values before they reach an
 * API URL, a workspace path or a git command (Microsoft Learn, "Naming restrictions and
 * conventions", Azure DevOps):
 * - Project and repository names: at most 64 characters; none of `\ / : * ? " < > | ; # $ { } , + =
 *   [ ]` nor control characters; not starting with `_` or `.`, not ending with `.`; not `.`/`..`.
 *   (Spaces are allowed.) Repository names never end in `.git` here (it would read as a clone URL).
 * - Identity ids, project and repository ids: GUIDs.
 */
import type { UsernameGrammar } from '../username-grammar.js';

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\\/:*?"<>|;#${},+=[\]\x00-\x1f\x7f%]/;

/** True when `name` is an Azure DevOps project or repository name. */
export function isAzureName(name: string): boolean {
  if (name === '' || name.length > 64 || FORBIDDEN.test(name)) return false;
  if (name.startsWith('_') || name.startsWith('.') || name.endsWith('.')) return false;
  return name.trim() === name && !/\.git$/i.test(name);
}

/** True when `fullName` is `project/repo`. */
export function isAzureFullName(fullName: string): boolean {
  const parts = fullName.split('/');
  return parts.length === 2 && isAzureName(parts[0] ?? '') && isAzureName(parts[1] ?? '');
}

/** A GUID as Azure DevOps writes ids (any case). */
export const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True when `id` is a GUID. */
export function isGuid(id: string): boolean {
  return GUID.test(id);
}

/**
 * An identity as a mention names it: `<GUID>` (what Azure DevOps stores when a user is picked from
 * the mention list: `@<6F9619FF-8B86-D011-B42D-00CF4FC964FF>`), or a unique name as typed (an
 * e-mail address on Services, `DOMAIN\user` on Server, or a plain account name).
 */
export function isAzureMentionName(name: string): boolean {
  if (name.startsWith('<') && name.endsWith('>')) return isGuid(name.slice(1, -1));
  return /^[A-Za-z0-9_][A-Za-z0-9_.@\\+-]{0,255}$/.test(name);
}

/** After a mention: the end, or a character that cannot continue a unique name. */
const MENTION_END = /(?:$|[^A-Za-z0-9_.@\\+-]|\.(?:$|[^A-Za-z0-9_-]))/y;

/** Azure DevOps' username grammar for mentions (CONTRACT §6). */
export const AZURE_DEVOPS_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || !/[A-Za-z0-9_.@\\<>+-]/.test(text[at - 1] as string),
  endsMention(text, end) {
    if (text[end - 1] === '>') return true;
    MENTION_END.lastIndex = end;
    return MENTION_END.test(text);
  },
  isUsername: isAzureMentionName,
};
