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
  BANNER_HINTS,
  BANNER_MAX_LINE,
  hasGeneratedHeader,
  hasMinifiedContent,
  gitattributesFor,
  hasMinifiedName,
  hasMinifiedSize,
  isBannerLine,
  isLockFile,
  isMinifiable,
  loadLinguistRules,
  type LinguistRules,
  type PathAttributes,
} from './triage-rules.js';
import type { SkippedFile } from './types.js';

/** Why a file was skipped; the receipt's `reason` and the `/metrics` label. */
export type SkipReason =
  | 'review.ignore'
  | 'no diff'
  | 'binary'
  | 'lock file'
  | 'minified'
  | 'generated'
  | typeof GENERATED_BY_BASE
  | 'vendored';

/** The reason of a file whose base version is generated although the head removes its banner. */
export const GENERATED_BY_BASE = 'generated (its base version; the head removes the header)';

/** What the base commit holds of a file the pull request modifies (see `BaseHeadsReader`). */
export interface BaseHead {
  /** The base version's lines that may carry a banner, by 1-based number (others unknown). */
  hintLines: Map<number, string>;
  /** Bytes and lines of a `.js`/`.css` base version. */
  size?: { bytes: number; lines: number };
}

/**
 * Reads base versions' first lines: for each base path asked (those of modified and renamed files),
 * the lines within the first `maxLine` containing one of `hints` (case-insensitive), and the size
 * of those `measure` selects; a path missing from the result is not known. `undefined`: nothing
 * could be read.
 */
export type BaseHeadsReader = (request: {
  paths: string[];
  hints: readonly string[];
  maxLine: number;
  measure: (path: string) => boolean;
}) => Promise<Map<string, BaseHead> | undefined>;

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
  /**
   * Reads the BASE versions of modified and renamed files for the content rules (banners, minified);
   * without it only added files get them.
   */
  readBaseHeads?: BaseHeadsReader;
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
 * lock file, minified (by name; by average line length of a new file, or of a modified file's
 * BASE version), Linguist's generated rules (path patterns; generator banners in the first lines of
 * a new file, or of a modified or renamed file's BASE version: a head cannot forge the base, so a
 * banner it adds hides nothing and one it removes keeps the file skipped), Linguist's vendored
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
  const attributesOf = (path: string): PathAttributes => attributes?.attributes.get(path) ?? {};
  const reasons = input.files.map((file) => reasonOf(file, ignored, attributesOf(file.path), rules));
  // Content rules of files the pull request modifies read their base version, which it cannot forge.
  const candidates = input.readBaseHeads
    ? input.files.filter(
        (file, i) =>
          reasons[i] === undefined &&
          (file.status === 'modified' || file.status === 'renamed') &&
          attributesOf(file.path).generated !== false,
      )
    : [];
  const baseOf = (file: FileDiff): string => file.previousPath ?? file.path;
  const heads =
    candidates.length > 0
      ? await input.readBaseHeads!({
          paths: [...new Set(candidates.map(baseOf))],
          hints: BANNER_HINTS,
          maxLine: BANNER_MAX_LINE,
          measure: isMinifiable,
        })
      : undefined;
  const result: TriageResult = { kept: [], skipped: [] };
  for (const [i, file] of input.files.entries()) {
    const head = heads && reasons[i] === undefined ? heads.get(baseOf(file)) : undefined;
    const reason = reasons[i] ?? (head ? baseReason(file, head) : undefined);
    if (reason === undefined) result.kept.push(file);
    else result.skipped.push({ path: file.path, reason });
  }
  return result;
}

/**
 * The content rules on a modified file's base version: minified when its lines average over 110
 * characters; generated when its first lines carry a banner — said so when the head removes it.
 */
function baseReason(file: FileDiff, head: BaseHead): SkipReason | undefined {
  if (head.size && hasMinifiedSize(file.path, head.size)) return 'minified';
  const lines = Array.from({ length: BANNER_MAX_LINE }, (_, i) => head.hintLines.get(i + 1) ?? '');
  if (!hasGeneratedHeader(lines)) return undefined;
  return removesBanner(file) ? GENERATED_BY_BASE : 'generated';
}

/** True when the diff removes a banner line from the file's first lines and adds none there. */
function removesBanner(file: FileDiff): boolean {
  let removed = false;
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (!isBannerLine(line.text)) continue;
      if (line.kind === 'add' && (line.newLine ?? Infinity) <= BANNER_MAX_LINE) return false;
      if (line.kind === 'del' && (line.oldLine ?? Infinity) <= BANNER_MAX_LINE) removed = true;
    }
  }
  return removed;
}
