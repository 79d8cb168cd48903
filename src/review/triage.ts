/**
 * Triage (CONTRACT §15): which files of a pull request the model is shown. Lock files, generated
 * and vendored files (GitHub Linguist's rules and the base commit's `.gitattributes`), minified
 * files, binaries and `review.ignore` globs are skipped: never shown to the model, never commented
 * on, each listed in the receipt with its reason.
 */
import type { Logger } from '../logger.js';
import { matchGlobSpecs } from '../patterns/glob-match.js';
import type { FileDiff } from '../diff/diff.js';
import { logGlobFailures, RULES_GLOB_TIMEOUT_MS } from './repo-rules.js';
import {
  hasGeneratedHeader,
  hasMinifiedContent,
  gitattributesFor,
  hasMinifiedName,
  isLockFile,
  loadLinguistRules,
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
  /** Where a glob that could not be applied is reported (warn). */
  logger?: Logger;
  /** Wall-clock limit of matching each glob set (ignore, `.gitattributes`), ms; default `RULES_GLOB_TIMEOUT_MS`. */
  globTimeoutMs?: number;
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
  ignored: ReadonlySet<string>,
  attrs: PathAttributes,
  rules: LinguistRules,
): SkipReason | undefined {
  const { path } = file;
  if (ignored.has(path)) return 'review.ignore';
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
 * `linguist-vendored=false` in `.gitattributes` keep a file Linguist would skip. The `review.ignore`
 * and `.gitattributes` globs are matched in a worker thread (they come from the repository); one
 * that cannot be evaluated in time is not applied and is logged.
 * @throws Error when Linguist's data cannot be loaded (package missing).
 */
export async function triageFiles(input: TriageInput): Promise<TriageResult> {
  const rules = input.rules ?? (await loadLinguistRules());
  const timeoutMs = input.globTimeoutMs ?? RULES_GLOB_TIMEOUT_MS;
  const paths = input.files.map((f) => f.path);
  const ignore = [...input.ignore];
  const [ignoreOutcome, attributes] = await Promise.all([
    matchGlobSpecs(
      ignore.map((pattern) => ({ pattern })),
      paths,
      timeoutMs,
    ),
    input.gitattributes ? gitattributesFor(input.gitattributes, paths, timeoutMs) : undefined,
  ]);
  logGlobFailures(input.logger, 'review.ignore', ignore, ignoreOutcome.failures);
  if (attributes) {
    const patterns = attributes.lines.map((line) => line.spec.pattern);
    logGlobFailures(input.logger, '.gitattributes', patterns, attributes.outcome.failures);
  }
  const ignored = new Set(ignoreOutcome.matches.flatMap((m) => (m ?? []).map((i) => paths[i]!)));
  const result: TriageResult = { kept: [], skipped: [] };
  for (const file of input.files) {
    const reason = reasonOf(file, ignored, attributes?.attributes.get(file.path) ?? {}, rules);
    if (reason === undefined) result.kept.push(file);
    else result.skipped.push({ path: file.path, reason });
  }
  return result;
}
