/**
 * Triage (CONTRACT §15): which files of a pull request the model is shown. Lock files, generated
 * and vendored files (GitHub Linguist's rules and the base commit's `.gitattributes`), minified
 * files, binaries and `review.ignore` globs are skipped: never shown to the model, never commented
 * on, each listed in the receipt with its reason.
 */
import picomatch from 'picomatch';
import type { FileDiff } from './diff.js';
import {
  hasGeneratedHeader,
  isLockFile,
  isMinified,
  loadLinguistRules,
  parseGitattributes,
  type LinguistRules,
  type PathAttributes,
} from './triage-rules.js';
import type { SkippedFile } from './types.js';

/** Why a file was skipped; the receipt's `reason` and the `/metrics` label. */
export type SkipReason =
  'review.ignore' | 'no diff' | 'binary' | 'lock file' | 'minified' | 'generated' | 'vendored';

/** Every skip reason, in the order triage checks them. */
export const SKIP_REASONS: readonly SkipReason[] = [
  'review.ignore',
  'no diff',
  'binary',
  'lock file',
  'minified',
  'generated',
  'vendored',
];

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

function addedLines(file: FileDiff): string[] {
  const out: string[] = [];
  for (const hunk of file.hunks) for (const line of hunk.lines) if (line.kind === 'add') out.push(line.text);
  return out;
}

/** The file's first lines as the diff shows them (a hunk starting at new line 1), else `[]`. */
function topLines(file: FileDiff): string[] {
  const first = file.hunks[0];
  if (first === undefined || first.newStart > 1) return [];
  return first.lines.filter((l) => l.kind !== 'del').map((l) => l.text);
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
  if (attrs.generated !== false && isMinified(path, addedLines(file))) return 'minified';
  if (attrs.generated !== false) {
    if (rules.generated.some((r) => r.test(path)) || hasGeneratedHeader(topLines(file))) return 'generated';
  }
  if (attrs.vendored !== false && rules.vendored.some((r) => r.test(path))) return 'vendored';
  return undefined;
}

/**
 * Splits `files` into those the model sees and those it does not. Precedence: `review.ignore`,
 * `.gitattributes` `-diff`, binary, `.gitattributes` `linguist-generated`/`linguist-vendored`,
 * lock file, minified, Linguist's generated rules (path patterns and generated-code headers in the
 * file's first lines), Linguist's vendored paths. `linguist-generated=false` /
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
