/**
 * A hint for a common mix-up: `./reviewbot.yaml` (reviewbot's own configuration, read from the
 * working directory when no other file is given) holding the keys of a repository's rules file,
 * `.reviewbot.yaml` (with a leading dot, read from the pull request's base commit).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { resolveConfigFile } from '../config/load-config.js';
import { RULES_FILE } from '../review/repo-rules.js';

/** The keys a repository's `.reviewbot.yaml` may set (its `review.*` keys). */
export const REPOSITORY_RULE_KEYS = [
  'instructions',
  'path_instructions',
  'ignore',
  'max_comments',
  'incremental',
] as const;

/** Where the configuration would come from (`loadConfig`'s inputs). */
export interface MisplacedRulesInput {
  /** `--config FILE`, if given. */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Default: the process's working directory. */
  cwd?: string;
  /** Overrides `/etc/reviewbot/config.yaml` (tests). */
  systemConfigPath?: string;
}

/**
 * One warning when the configuration in use is `./reviewbot.yaml` of the working directory, it sets
 * repository-rule keys (`review.instructions`, `review.path_instructions`, …) and no
 * `.reviewbot.yaml` sits beside it: those keys then configure only this run (and
 * `review.path_instructions` is refused), not the repository's reviews. Undefined otherwise, also
 * when the file cannot be read or parsed (`loadConfig` reports that).
 */
export function misplacedRulesWarning(input: MisplacedRulesInput): string | undefined {
  const cwd = input.cwd ?? process.cwd();
  const local = path.join(cwd, 'reviewbot.yaml');
  const file = resolveConfigFile({
    ...(input.configFile ? { configFile: input.configFile } : {}),
    env: input.env,
    cwd,
    ...(input.systemConfigPath ? { systemConfigPath: input.systemConfigPath } : {}),
  });
  if (file !== local || existsSync(path.join(cwd, RULES_FILE))) return undefined;
  let review: unknown;
  try {
    review = (parseYaml(readFileSync(local, 'utf8')) as { review?: unknown } | null)?.review;
  } catch {
    return undefined;
  }
  if (typeof review !== 'object' || review === null) return undefined;
  const keys = REPOSITORY_RULE_KEYS.filter((key) => key in review).map((key) => `review.${key}`);
  if (keys.length === 0) return undefined;
  return (
    `./reviewbot.yaml sets ${keys.join(', ')}: that file configures reviewbot itself, for this run; ` +
    `a repository's review rules belong in ${RULES_FILE} (with a leading dot) at its root, ` +
    `where every review of its pull requests reads them`
  );
}
