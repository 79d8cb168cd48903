/**
 * Triage (CONTRACT §15): which files of a pull request the model is shown. Lock files, generated
 * and vendored files (GitHub Linguist's rules and the base commit's `.gitattributes`), minified
 * files, binaries and `review.ignore` globs are skipped: never shown to the model, never commented
 * on, each listed in the receipt with its reason.
 */
import picomatch from 'picomatch';
import type { FileDiff } from '../diff/diff.js';
import {
  hasGeneratedHeader,
  hasMinifiedContent,
  hasMinifiedName,
  isLockFile,
  loadLinguistRules,
  parseGitattributes,
  type LinguistRules,
  type PathAttributes,
} from './triage-rules.js';
import type { SkippedFile } from './types.js';

/** Why a file was skipped; the receipt's `reason` and the `/metrics` label. */
export type SkipReason =
  'review.ignore' | 'no diff' | 'binary' | 'lock file' | 'minified' | 'generated' | 'vendored';

/** Input of `triageFiles`. */
export interface TriageInput {
  /** The pull request's parsed diff. */
  files: FileDiff[];
  /** `review.ignore` globs (picomatch, matched against the path; `dot` files included). */
  ignore: readonly string[];
  /**
   * Text of `.gitattributes` at the root of the pull request's BASE commit, when it has one (never
   * the head's: a pull request must not mark its own files generated to evade review).
   */
  gitattributes?: string | undefined;
  /** Linguist's rules; default: `loadLinguistRules()`. */
  rules?: LinguistRules;
}

/** What triage decided. */
export interface TriageResult {
  /** Files shown to the model, in diff order. */
  kept: FileDiff[];
  /** Files left out, in diff order, each with its reason. */
  skipped: Array<SkippedFile & { reason: SkipReason }>;
}

/**
 * The whole content of a file the pull request ADDS (status `added`: every line is an added line),
 * else `undefined`. Content rules (minified, generator banners) apply only to such files: for an
 * existing file the diff shows only what the pull request chose to change, so a long edited line or
 * a banner added at its top must not decide that the change goes unreviewed.
 */
function newFileLines(file: FileDiff): string[] | undefined {
  if (file.status !== 'added') return undefined;
  const out: string[] = [];
  for (const hunk of file.hunks) for (const line of hunk.lines) if (line.kind !== 'del') out.push(line.text);
  return out;
}

function reasonOf(
  file: FileDiff,
  ignored: (path: string) => boolean,
  attrs: PathAttributes,
  rules: LinguistRules,
): SkipReason | undefined {
  const { path } = file;
  if (ignored(path)) return 'review.ignore';
  if (attrs.diff === false) return 'no diff';
  if (file.binary) return 'binary';
  if (attrs.generated === true) return 'generated';
  if (attrs.vendored === true) return 'vendored';
  if (attrs.generated !== false && isLockFile(path)) return 'lock file';
  const content = newFileLines(file);
  if (attrs.generated !== false) {
    if (hasMinifiedName(path) || (content !== undefined && hasMinifiedContent(path, content)))
      return 'minified';
    if (rules.generated.some((r) => r.test(path))) return 'generated';
    if (content !== undefined && hasGeneratedHeader(content)) return 'generated';
  }
  if (attrs.vendored !== false && rules.vendored.some((r) => r.test(path))) return 'vendored';
  return undefined;
}

/**
 * Splits `files` into those the model sees and those it does not. Precedence: `review.ignore`,
 * `.gitattributes` `-diff`, binary, `.gitattributes` `linguist-generated`/`linguist-vendored`,
 * lock file, minified (by name; by average line length for new files only), Linguist's generated
 * rules (path patterns; generator banners in the first lines of new files only), Linguist's vendored
 * paths. All of Linguist's rules are case-sensitive, as Linguist applies them. `linguist-generated=false` /
 * `linguist-vendored=false` in `.gitattributes` keep a file Linguist would skip.
 * @throws Error when Linguist's data cannot be loaded (package missing).
 */
export async function triageFiles(input: TriageInput): Promise<TriageResult> {
  const rules = input.rules ?? (await loadLinguistRules());
  const ignored =
    input.ignore.length > 0 ? picomatch([...input.ignore], { dot: true }) : (): boolean => false;
  const attributesOf = input.gitattributes ? parseGitattributes(input.gitattributes) : () => ({});
  const result: TriageResult = { kept: [], skipped: [] };
  for (const file of input.files) {
    const reason = reasonOf(file, ignored, attributesOf(file.path), rules);
    if (reason === undefined) result.kept.push(file);
    else result.skipped.push({ path: file.path, reason });
  }
  return result;
}
