/**
 * Repository rules (CONTRACT §14): `.reviewbot.yaml` and the guideline files (`AGENTS.md`,
 * `CLAUDE.md`, `.github/copilot-instructions.md`, `REVIEW.md`) read through the platform API from the
 * pull request's BASE commit — never the head, so a pull request cannot change the rules it is
 * reviewed by — merged with the server's `review.*` settings. A bad file never stops a review: the
 * defaults apply and `problems` says which key was wrong, for the review body.
 */
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { Logger } from '../logger.js';
import type { Platform } from '../platforms/types.js';
import { codeSpan } from '../diff/markdown.js';
import { matchGlobSpecs } from '../patterns/glob-match.js';
import { RepoRulesFile, type PathInstruction } from './repo-rules-schema.js';
import { createFence } from './prompt.js';
import type { Severity } from './severity/severity.js';

/** The repository rules file, at the root of the base commit. */
export const RULES_FILE = '.reviewbot.yaml';
/** Guideline files read from the base commit, in prompt order. */
export const GUIDELINE_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', 'REVIEW.md'];
/** Characters of one guideline file that reach the model; the rest is cut with a note. */
export const MAX_GUIDELINE_CHARS = 8_000;
/** Characters of all guideline files together. */
export const MAX_GUIDELINES_TOTAL_CHARS = 20_000;
/**
 * Wall-clock limit of matching one set of rule globs against a review's paths, ms. The globs come
 * from the repository, so they are matched in a worker thread (`matchGlobSpecs`); a glob still
 * running at the limit, and those after it, are not applied (logged).
 */
export const RULES_GLOB_TIMEOUT_MS = 2_000;

/** The server's `review.*` settings these rules merge with (`config.review`). */
export interface ServerReviewSettings {
  incremental: boolean;
  instructions?: string | undefined;
  ignore: string[];
  max_comments?: number | undefined;
  /** §21 `review.min_severity`; default P3 (everything is posted). */
  min_severity?: Severity | undefined;
  /** §21 `review.block_on`; default P1. */
  block_on?: Severity | undefined;
}

/** A guideline file as the model receives it. */
export interface Guideline {
  path: string;
  text: string;
  truncated: boolean;
}

/** The rules in force for one review. */
export interface EffectiveRules {
  /** §13 incremental reviews: on only when both the server and the repository allow it. */
  incremental: boolean;
  /** Server instructions first, then the repository's. */
  instructions: string[];
  pathInstructions: PathInstruction[];
  /** Server `review.ignore` plus the repository's `review.ignore` (picomatch globs, dotfiles too). */
  ignore: string[];
  /** Inline findings per review: the smaller of the server's and the repository's limits. */
  maxComments?: number;
  guidelines: Guideline[];
  /** §21: findings less severe than this are not posted (the repository's value, else the server's). */
  minSeverity: Severity;
  /** §21: the verdict blocks at this severity (the repository's value, else the server's). */
  blockOn: Severity;
  /** Problems with `.reviewbot.yaml`, each naming the key (empty when it is fine or absent). */
  problems: string[];
}

/** Rules from the server settings alone (no repository file read). */
export function serverRules(server: ServerReviewSettings): EffectiveRules {
  return {
    incremental: server.incremental,
    instructions: server.instructions ? [server.instructions] : [],
    pathInstructions: [],
    ignore: [...server.ignore],
    ...(server.max_comments !== undefined ? { maxComments: server.max_comments } : {}),
    guidelines: [],
    minSeverity: server.min_severity ?? 'P3',
    blockOn: server.block_on ?? 'P1',
    problems: [],
  };
}

/** Parses and validates `.reviewbot.yaml` text; returns the file or the problems naming each key. */
export function parseRulesFile(
  text: string,
): { ok: true; file: RepoRulesFile } | { ok: false; problems: string[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    return { ok: false, problems: [`${RULES_FILE} is not valid YAML${where}`] };
  }
  const checked = RepoRulesFile.safeParse(raw ?? null);
  if (checked.success) return { ok: true, file: checked.data };
  const problems = checked.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const at = issue.path.map(String).join('.');
    if (keys.length > 0) return keys.map((k) => `unknown key ${codeSpan(at ? `${at}.${k}` : k)}`).join('; ');
    return `${codeSpan(at || '(root)')}: ${issue.message}`;
  });
  return { ok: false, problems };
}

/** Merges a valid rules file into the server's rules. */
export function mergeRules(server: ServerReviewSettings, file: RepoRulesFile): EffectiveRules {
  const rules = serverRules(server);
  const review = file?.review;
  if (!review) return rules;
  if (review.incremental === false) rules.incremental = false;
  if (review.instructions) rules.instructions.push(review.instructions);
  rules.pathInstructions = review.path_instructions ?? [];
  rules.ignore.push(...(review.ignore ?? []));
  if (review.max_comments !== undefined) {
    rules.maxComments = Math.min(review.max_comments, rules.maxComments ?? Number.POSITIVE_INFINITY);
  }
  if (review.min_severity !== undefined) rules.minSeverity = review.min_severity;
  if (review.block_on !== undefined) rules.blockOn = review.block_on;
  return rules;
}

function capGuidelines(found: Array<{ path: string; text: string }>): Guideline[] {
  const out: Guideline[] = [];
  let left = MAX_GUIDELINES_TOTAL_CHARS;
  for (const { path, text } of found) {
    if (left <= 0) break;
    const limit = Math.min(MAX_GUIDELINE_CHARS, left);
    const truncated = text.length > limit;
    const kept = truncated ? text.slice(0, limit) : text;
    left -= kept.length;
    out.push({ path, text: kept, truncated });
  }
  return out;
}

/** Input of `loadRepoRules`. */
export interface LoadRepoRulesInput {
  platform: Platform;
  repoFullName: string;
  /** The pull request's base commit (never its head). */
  baseSha: string;
  server: ServerReviewSettings;
  logger: Logger;
}

/**
 * Reads `.reviewbot.yaml` and the guideline files at `baseSha` (in parallel) and merges them with
 * the server settings. A platform without `getFileContent`, or a file that cannot be read, leaves
 * the server's rules (a read failure is logged, not thrown: the review goes on).
 */
export async function loadRepoRules(input: LoadRepoRulesInput): Promise<EffectiveRules> {
  const { platform, repoFullName, baseSha, server, logger } = input;
  const read = platform.getFileContent?.bind(platform);
  if (!read || !baseSha) return serverRules(server);
  const fetch = async (path: string): Promise<string | null> => {
    try {
      return await read(repoFullName, path, baseSha);
    } catch (error) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), path },
        'could not read a repository rules file',
      );
      return null;
    }
  };
  const [rulesText, ...guides] = await Promise.all([RULES_FILE, ...GUIDELINE_FILES].map(fetch));
  let rules = serverRules(server);
  if (rulesText !== null && rulesText !== undefined) {
    const parsed = parseRulesFile(rulesText);
    if (parsed.ok) rules = mergeRules(server, parsed.file);
    else rules.problems = parsed.problems;
  }
  const found = GUIDELINE_FILES.flatMap((path, i) => {
    const text = guides[i];
    return typeof text === 'string' && text.trim().length > 0 ? [{ path, text }] : [];
  });
  rules.guidelines = capGuidelines(found);
  return rules;
}

/**
 * The `paths` matching one of the rules' ignore globs, matched off the main thread. A glob that
 * cannot be evaluated (too long, invalid, over `timeoutMs`) ignores nothing and is logged.
 */
export async function ignoredPaths(
  rules: Pick<EffectiveRules, 'ignore'>,
  paths: readonly string[],
  logger?: Logger,
  timeoutMs = RULES_GLOB_TIMEOUT_MS,
): Promise<Set<string>> {
  const out = new Set<string>();
  if (rules.ignore.length === 0 || paths.length === 0) return out;
  const outcome = await matchGlobSpecs(
    rules.ignore.map((pattern) => ({ pattern })),
    paths,
    timeoutMs,
  );
  logGlobFailures(logger, 'review.ignore', rules.ignore, outcome.failures);
  for (const matched of outcome.matches) for (const i of matched ?? []) out.add(paths[i]!);
  return out;
}

/** Logs each rule glob that was not applied, with the reason. */
export function logGlobFailures(
  logger: Logger | undefined,
  key: string,
  patterns: readonly string[],
  failures: ReadonlyMap<number, string>,
): void {
  for (const [index, reason] of failures) {
    logger?.warn(
      { key, pattern: patterns[index]?.slice(0, 200), reason },
      'a repository glob was not applied',
    );
  }
}

/**
 * The path instructions whose glob matches one of `reviewedPaths`, each with those paths, matched
 * off the main thread (a glob that cannot be evaluated matches nothing and is logged).
 */
export async function matchPathInstructions(
  rules: Pick<EffectiveRules, 'pathInstructions'>,
  reviewedPaths: readonly string[],
  logger?: Logger,
  timeoutMs = RULES_GLOB_TIMEOUT_MS,
): Promise<Array<{ entry: PathInstruction; paths: string[] }>> {
  const patterns = rules.pathInstructions.map((entry) => entry.path);
  if (patterns.length === 0 || reviewedPaths.length === 0) return [];
  const outcome = await matchGlobSpecs(
    patterns.map((pattern) => ({ pattern })),
    reviewedPaths,
    timeoutMs,
  );
  logGlobFailures(logger, 'review.path_instructions', patterns, outcome.failures);
  return rules.pathInstructions.flatMap((entry, i) => {
    const paths = (outcome.matches[i] ?? []).map((j) => reviewedPaths[j]!);
    return paths.length > 0 ? [{ entry, paths }] : [];
  });
}

/**
 * The prompt section carrying the rules: instructions, the path instructions whose glob matches a
 * reviewed file (`matchPathInstructions`), and the guideline files. Repository text is fenced as
 * data (it comes from the base commit, but is still not the bot's own instructions). Empty when
 * there is nothing to say.
 */
export async function buildRulesPromptSection(
  rules: EffectiveRules,
  reviewedPaths: string[],
  logger?: Logger,
): Promise<string> {
  const fence = createFence();
  const parts: string[] = [];
  if (rules.instructions.length > 0) {
    parts.push(
      "Review instructions of the repository's maintainers (from the base branch; follow them within the rules above):",
      fence.wrap('review-instructions', rules.instructions.join('\n\n')),
    );
  }
  const matching = (await matchPathInstructions(rules, reviewedPaths, logger)).map(
    ({ entry, paths }) => `For files matching ${entry.path} (${paths.join(', ')}):\n${entry.instructions}`,
  );
  if (matching.length > 0) {
    parts.push('Path-specific instructions:', fence.wrap('path-instructions', matching.join('\n\n')));
  }
  for (const guide of rules.guidelines) {
    parts.push(
      `Project guidelines from ${guide.path} (base branch${guide.truncated ? ', truncated' : ''}):`,
      fence.wrap('guidelines', guide.text),
    );
  }
  return parts.join('\n');
}

/** The review-body notice for a bad `.reviewbot.yaml`, or '' when there is none. */
export function rulesNotice(rules: EffectiveRules): string {
  if (rules.problems.length === 0) return '';
  return [`> **${RULES_FILE} was not applied** (defaults used): ${rules.problems.join('; ')}.`].join('\n');
}
