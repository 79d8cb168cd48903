/**
 * `reviewbot review --local [--base REF] [--format text|json|sarif]` (CONTRACT §17): the current git
 * repository's changes against the merge base with REF, through the same review core as a pull
 * request (`executeReview`: triage, agent, filter), with no platform and no token. Prints the result
 * on stdout; posts nothing. Wiring only: the changes and the SARIF log come from `src/local/`.
 */
import { configuredModelWarnings } from '../agent/model-deprecation.js';
import { loadConfig } from '../config/load-config.js';
import type { Logger } from '../logger.js';
import { collectLocalChanges, type LocalChanges } from '../local/local-changes.js';
import { createLocalPlatform, LOCAL_REPO_NAME, localPullRequest } from '../local/local-platform.js';
import { toSarif } from '../local/sarif.js';
import { visiblePathPredicate } from '../local/visible-files.js';
import type { AgentRunner } from '../agent/types.js';
import { executeReview, type ReviewEvent } from '../review/execute-review.js';
import { reviewLimitsOf } from '../review/limits.js';
import { verifySettingsOf } from '../review/stages/verify.js';
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import type { ExecuteReviewResult } from '../review/types.js';
import type { SecretMasker } from '../secrets.js';
import { buildRunner } from './build-runner.js';
import { printReview } from './print-review.js';
import { REVIEWBOT_VERSION } from './version.js';
import { failOnExitCode } from './fail-on.js';
import type { Severity } from '../review/severity/severity.js';

/** Options of a local review. */
export interface LocalReviewOptions {
  format: 'text' | 'json' | 'sarif';
  /** `--base REF`; default: `origin/HEAD`, else main, master, origin/main, origin/master. */
  base?: string;
  prompt?: string;
  config?: string;
  /** Directory inside the repository; default `process.cwd()`. */
  cwd?: string;
  /** `--fail-on` (CONTRACT §21): exit 3 when the verdict counts a finding at or above it. */
  failOn?: Severity;
}

/** Dependencies of a local review. */
export interface LocalReviewDeps {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  masker: SecretMasker;
  onEvent: (event: ReviewEvent) => void;
}

/** The result of a review that did not need to run: nothing changed. */
function emptyResult(changes: LocalChanges): ExecuteReviewResult {
  return {
    summary: `No changes against ${changes.baseRef}.`,
    findings: [],
    rejected: [],
    body: `No changes against ${changes.baseRef}.`,
    sessionId: '',
    model: '',
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
    warnings: [],
  };
}

/**
 * Runs a local review and prints it in `options.format`; returns the exit code (0: reviewed, with
 * or without findings; 3: `failOn` and the verdict counts a finding at or above it).
 * @throws UsageError (not a repository, unknown base), ConfigError, AgentError, GitError.
 */
export async function runLocalReview(options: LocalReviewOptions, deps: LocalReviewDeps): Promise<number> {
  const { env, logger, masker, onEvent } = deps;
  const { config } = loadConfig({ ...(options.config ? { configFile: options.config } : {}), env });
  const changes = await collectLocalChanges({
    cwd: options.cwd ?? process.cwd(),
    ...(options.base !== undefined ? { base: options.base } : {}),
  });
  onEvent({
    type: 'phase',
    phase: 'diff',
    message: `${changes.files.length} changed files on ${changes.branch} since ${changes.mergeBase.slice(0, 12)} (merge base with ${changes.baseRef})`,
  });

  let result: ExecuteReviewResult;
  if (changes.files.length === 0) {
    result = emptyResult(changes);
  } else {
    const [warnings, limits] = await Promise.all([
      configuredModelWarnings(config.agent),
      reviewLimitsOf(config),
    ]);
    for (const warning of warnings) process.stderr.write(`reviewbot: warning: ${warning}\n`);
    // §22: findings are verified in the tool sandbox, never without it.
    const sandbox = config.review.verify === 'on' ? await setUpToolSandbox(config.agent, logger) : undefined;
    const built = buildRunner(config, env, masker, logger, sandbox ? { sandbox } : {});
    // The agent reads what a clone would hold: not the developer's ignored files (.env, node_modules).
    const isVisible = visiblePathPredicate(changes.visibleFiles);
    const runner: AgentRunner = { run: (runOptions) => built.run({ ...runOptions, isVisible }) };
    const pullRequest = localPullRequest(changes);
    const outcome = await executeReview({
      platform: createLocalPlatform(changes),
      runner,
      repoFullName: LOCAL_REPO_NAME,
      prNumber: pullRequest.number,
      pullRequest,
      ...(options.prompt ? { prompt: options.prompt } : {}),
      baseDir: config.workspace.base_dir,
      workspaceDir: changes.root,
      maxTurns: config.agent.max_turns,
      logger,
      masker,
      onEvent,
      limits,
      // Server-wide instructions, ignore globs and max_comments apply locally too.
      reviewSettings: config.review,
      verify: verifySettingsOf(config),
      ...(sandbox ? { sandbox } : {}),
    });
    result = outcome.result;
    result.warnings = [...warnings, ...result.warnings];
  }

  if (options.format === 'sarif') {
    const log = toSarif(result, {
      toolVersion: REVIEWBOT_VERSION,
      root: changes.root,
      files: changes.files,
      baseRef: changes.baseRef,
      mergeBase: changes.mergeBase,
      headSha: changes.headSha,
    });
    process.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
  } else if (options.format === 'json') {
    const local = { baseRef: changes.baseRef, mergeBase: changes.mergeBase, headSha: changes.headSha };
    process.stdout.write(`${JSON.stringify({ ...result, posted: false, local })}\n`);
  } else {
    printReview(result, {
      title: `local changes on ${changes.branch} against ${changes.baseRef} (${changes.root})`,
      postedLine: 'Not posted (--local).',
    });
  }
  return failOnExitCode(result.verdict, options.failOn);
}
