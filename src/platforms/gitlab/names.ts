/**
 * GitLab's naming rules (source: GitLab's `lib/gitlab/path_regex.rb` and the user/group/project
 * path validation messages): usernames, group (namespace) paths, project paths, full project paths,
 * and how a username ends inside comment text. Pure; used by the webhook schema, the CLI's
 * reference parser and the mention rule.
 */
import type { UsernameGrammar } from '../username-grammar.js';

/** Longest path segment (`Namespace::URL_MAX_LENGTH`). */
const MAX_SEGMENT = 255;
/** Most ancestors a group may have (`Namespace::NUMBER_OF_ANCESTORS_ALLOWED`). */
const MAX_ANCESTORS = 20;

/** `PATH_REGEX_STR`: starts with a letter, digit, `_` or `.`, then letters, digits, `_`, `-`, `.`. */
const PATH_SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

/** `NO_SUFFIX_REGEX`: a path never ends in `.git` or `.atom` (GitLab routes those suffixes). */
function hasReservedSuffix(segment: string): boolean {
  const lower = segment.toLowerCase();
  return lower.endsWith('.git') || lower.endsWith('.atom');
}

function isPathSegment(segment: string): boolean {
  return (
    segment.length <= MAX_SEGMENT &&
    PATH_SEGMENT.test(segment) &&
    segment !== '.' &&
    segment !== '..' &&
    !hasReservedSuffix(segment)
  );
}

/**
 * True when `segment` is a group (namespace) path or a username: "can contain only letters,
 * digits, '_', '-' and '.'. Cannot start with '-', end in '.', '.git' or '.atom'", at most 255
 * characters.
 */
export function isGitLabNamespace(segment: string): boolean {
  return isPathSegment(segment) && !segment.endsWith('.');
}

/**
 * True when `segment` is a project path: as a namespace, except that it may end in `.` (GitLab's
 * `PROJECT_PATH_FORMAT_REGEX`); `.` and `..` are refused.
 */
export function isGitLabProjectName(segment: string): boolean {
  return isPathSegment(segment);
}

/**
 * True when `path` is a full project path (`path_with_namespace`): one to 21 namespace segments
 * (a top-level group or user and at most 20 nested subgroups) and the project's path, joined by `/`.
 */
export function isGitLabProjectPath(path: string): boolean {
  const segments = path.split('/');
  if (segments.length < 2 || segments.length > MAX_ANCESTORS + 2) return false;
  const project = segments.pop() as string;
  return isGitLabProjectName(project) && segments.every(isGitLabNamespace);
}

/**
 * Where a mention ends, after GitLab's user reference pattern (`User.reference_pattern`:
 * `(?<!\w)@` followed by the namespace format, matched greedily): the name ends the mention only
 * when what follows cannot extend it into a longer valid username — a run of letters, digits, `_`,
 * `-` and `.` that ends in a non-dot (`@rb_`, `@rb.x`, `@rb-x` are other users; `@rb.` at the end of
 * a sentence is `rb`, as no username ends in `.`).
 */
const GITLAB_MENTION_END = /(?![A-Za-z0-9_.-]*[A-Za-z0-9_-])/y;

/** GitLab: `(?<!\w)`, the character before `@` is not a word character. */
const WORD_CHAR = /\w/;

/** GitLab's username grammar for mentions (CONTRACT §6). */
export const GITLAB_USERNAMES: UsernameGrammar = {
  canStartMention: (text, at) => at === 0 || !WORD_CHAR.test(text[at - 1] as string),
  endsMention(text, end) {
    GITLAB_MENTION_END.lastIndex = end;
    return GITLAB_MENTION_END.test(text);
  },
  isUsername: isGitLabNamespace,
};
