/**
 * The reviewbot GitHub Action (CONTRACT §17, `action.yml`): reviews the workflow's pull request with
 * the workflow's `GITHUB_TOKEN` and posts one review, like `reviewbot review owner/repo#N`.
 *
 * Reads the runner's environment (GitHub's "Variables" reference): `GITHUB_EVENT_NAME`,
 * `GITHUB_EVENT_PATH`, `GITHUB_REPOSITORY`, `GITHUB_API_URL`, `GITHUB_TOKEN`, `RUNNER_TEMP`,
 * `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, and the inputs as `INPUT_<NAME>` (`provider`, `model`,
 * `key`, `prompt`, `config_file`, `dry_run`, `fail_on`). Wiring only: the review is `reviewPullRequest`.
 *
 * On Gitea Actions and Forgejo Actions (`GITEA_ACTIONS`/`FORGEJO_ACTIONS`, see
 * `platforms/gitea/action-event.ts`) the same variables name the Gitea instance
 * (`GITHUB_SERVER_URL`) and the workflow's token; the event file holds Gitea's payload, and the
 * review goes through the `gitea` platform (`GITEA_URL`, `GITEA_TOKEN`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isProviderId, PROVIDERS } from '../agent/providers.js';
import { formatReview } from '../cli/print-review.js';
import { createProgressPrinter } from '../cli/progress.js';
import { reviewPullRequest, skippedMessage } from '../cli/review-command.js';
import { describeError, ReviewbotError } from '../errors.js';
import { createCliLogger } from '../logger.js';
import { giteaServerUrl, isGiteaActions, parseGiteaActionEvent } from '../platforms/gitea/action-event.js';
import { parseActionEvent } from '../platforms/github/action-event.js';
import type { PlatformName } from '../platforms/types.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { commandMessage, reviewOutputs, writeOutputs, writeSummary } from './outputs.js';
import { FAIL_ON_EXIT_CODE } from '../cli/fail-on.js';
import { isSeverity, type Severity } from '../review/severity/severity.js';
import { failsAt, verdictText } from '../review/severity/verdict.js';
import type { Verdict } from '../review/types.js';

/** README section a fork's failure points to. */
export const FORK_HELP =
  'see "Fork pull requests" in the reviewbot docs (docs/ci.md): let a maintainer start the review with a comment (an issue_comment workflow); never use pull_request_target with a checkout of the head';

/** A problem of the Action's set-up, reported as one `::error::` line (exit 2). */
class SetupError extends ReviewbotError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
  }
}

function input(env: NodeJS.ProcessEnv, name: string): string {
  return (env[`INPUT_${name.toUpperCase()}`] ?? '').trim();
}

/** The platform's credentials from the workflow's token and the runner's URLs. */
function platformEnv(env: NodeJS.ProcessEnv, platform: PlatformName, token: string): NodeJS.ProcessEnv {
  if (platform !== 'gitea') {
    return {
      ...env,
      CODEHOST_TOKEN: token,
      CODEHOST_API_URL: env.GITHUB_API_URL || 'https://api.github.com',
    };
  }
  const url = giteaServerUrl(env);
  if (!url)
    throw new SetupError('GITHUB_SERVER_URL is not set: run reviewbot as a step of a Gitea Actions job');
  const out: NodeJS.ProcessEnv = { ...env, GITEA_URL: url, GITEA_TOKEN: token };
  // GITHUB_TOKEN is an alias of CODEHOST_TOKEN: left in, it would enable the github platform
  // against Gitea's API too. The review needs the gitea platform only.
  for (const name of ['GITHUB_TOKEN', 'CODEHOST_TOKEN', 'CODEHOST_API_URL']) delete out[name];
  return out;
}

/**
 * The environment the review runs with: the runner's, plus the configuration the inputs and the
 * workflow's token stand for (CONTRACT §3 names): on GitHub `CODEHOST_TOKEN`/`CODEHOST_API_URL`,
 * on Gitea/Forgejo (`platform` `gitea`) `GITEA_URL`/`GITEA_TOKEN`.
 * @throws SetupError naming the missing variable or input.
 */
export function reviewEnv(env: NodeJS.ProcessEnv, platform: PlatformName = 'github'): NodeJS.ProcessEnv {
  const token = env.GITHUB_TOKEN ?? '';
  if (!token) throw new SetupError('GITHUB_TOKEN is empty: pass github_token (default: github.token)');
  const out: NodeJS.ProcessEnv = {
    ...platformEnv(env, platform, token),
    WORKSPACE_BASE_DIR: env.WORKSPACE_BASE_DIR || path.join(env.RUNNER_TEMP || tmpdir(), 'reviewbot'),
  };
  const provider = input(env, 'provider');
  const model = input(env, 'model');
  const key = input(env, 'key');
  if (provider) out.AGENT_PROVIDER = provider;
  if (model) out.AGENT_MODEL = model;
  const chosen = out.AGENT_PROVIDER ?? '';
  if (
    !key &&
    isProviderId(chosen) &&
    !PROVIDERS[chosen].keyOptional &&
    PROVIDERS[chosen].keyVars.every((name) => !env[name])
  ) {
    throw new SetupError(
      'the key input is empty: pass the provider API key from a secret (workflows of fork pull requests get no secrets)',
    );
  }
  if (key) {
    if (!isProviderId(chosen)) {
      throw new SetupError(
        `the key input needs a provider input (one of ${Object.keys(PROVIDERS).join(', ')})`,
      );
    }
    out[PROVIDERS[chosen].keyVars[0]!] = key;
  }
  // The key lives on under the provider's name only (child processes scrub those names).
  delete out.INPUT_KEY;
  return out;
}

/**
 * The `fail_on` input (CONTRACT §21): a severity P0–P3 (any case), or undefined when empty.
 * @throws SetupError for anything else.
 */
export function failOnInput(env: NodeJS.ProcessEnv): Severity | undefined {
  const value = input(env, 'fail_on').toUpperCase();
  if (value === '') return undefined;
  if (!isSeverity(value)) throw new SetupError(`the fail_on input must be P0, P1, P2 or P3, not "${value}"`);
  return value;
}

/**
 * Exit code 3 with an `::error::` naming the verdict when `failOn` fails it (CONTRACT §21), else 0.
 */
function failOnVerdict(
  verdict: Verdict | undefined,
  failOn: Severity | undefined,
  say: (kind: 'error', text: string) => void,
): number {
  if (!failOn || !failsAt(verdict, failOn)) return 0;
  say('error', `verdict ${verdictText(verdict!)}: an open finding is at or above ${failOn} (fail_on)`);
  return FAIL_ON_EXIT_CODE;
}

/** Reads and parses `GITHUB_EVENT_PATH`. @throws SetupError when it is missing or not JSON. */
function readEvent(env: NodeJS.ProcessEnv): unknown {
  const file = env.GITHUB_EVENT_PATH;
  if (!file)
    throw new SetupError('GITHUB_EVENT_PATH is not set: run reviewbot as a step of a GitHub Actions job');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new SetupError(`cannot read the event at GITHUB_EVENT_PATH: ${describeError(error)}`);
  }
}

/**
 * Runs the Action; returns the process exit code (0 reviewed or skipped, 1 the review failed or the
 * pull request comes from a fork, 2 a set-up problem, 3 `fail_on` and the verdict counts an open
 * finding at or above it). Writes `::error::`/`::notice::` commands and
 * the review text to `stdout`, progress to stderr.
 */
export async function runAction(
  env: NodeJS.ProcessEnv = process.env,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const masker = new SecretMasker([...secretValues(env), input(env, 'key')]);
  // While the review runs, its output (progress, then the review text) is model output steered by
  // pull request text: no line of it may act as a workflow command, so commands are stopped
  // (GitHub's "Stopping and starting workflow commands") and resumed with a random token.
  let resumeToken: string | undefined;
  const resumeCommands = (): void => {
    if (resumeToken) stdout.write(`::${resumeToken}::\n`);
    resumeToken = undefined;
  };
  const say = (kind: 'error' | 'notice' | 'warning', text: string): void => {
    resumeCommands();
    stdout.write(`::${kind} title=reviewbot::${commandMessage(masker.mask(text))}\n`);
  };
  try {
    const platform: PlatformName = isGiteaActions(env) ? 'gitea' : 'github';
    const host = platform === 'gitea' ? 'Gitea' : 'GitHub';
    const parse = platform === 'gitea' ? parseGiteaActionEvent : parseActionEvent;
    const event = parse(env.GITHUB_EVENT_NAME ?? '', readEvent(env));
    if (event.kind === 'ignored') {
      say('notice', `nothing to review: ${event.reason}`);
      return 0;
    }
    if (env.GITHUB_REPOSITORY && event.repoFullName.toLowerCase() !== env.GITHUB_REPOSITORY.toLowerCase()) {
      throw new SetupError(
        `the event is about ${event.repoFullName}, not GITHUB_REPOSITORY ${env.GITHUB_REPOSITORY}`,
      );
    }
    if (event.kind === 'pull_request' && event.isFork) {
      say(
        'error',
        `pull request #${event.prNumber} comes from the fork ${event.headRepoFullName ?? '(deleted)'}: ${host} gives pull_request workflows of forks no secrets and a read-only GITHUB_TOKEN, so reviewbot can neither call the model nor post a review; ${FORK_HELP}`,
      );
      return 1;
    }
    if (event.kind === 'comment' && !event.trusted) {
      say(
        'notice',
        `comment by ${event.authorLogin} ignored: only ${platform === 'gitea' ? 'users who may write to the repository' : 'owners, members and collaborators'} start a review`,
      );
      return 0;
    }
    const runEnv = reviewEnv(env, platform);
    const logger = createCliLogger(env, masker);
    const dryRun = /^true$/i.test(input(env, 'dry_run'));
    const prompt = input(env, 'prompt');
    const configFile = input(env, 'config_file');
    const failOn = failOnInput(env);
    resumeToken = randomBytes(16).toString('hex');
    stdout.write(`::stop-commands::${resumeToken}\n`);
    const review = await reviewPullRequest(
      {
        ref: `${event.repoFullName}#${event.prNumber}`,
        platform,
        dryRun,
        json: false,
        // A pull_request event (opened, synchronize, reopened, ready_for_review, a re-run) is a
        // lifecycle trigger: nothing new since the bot's last review runs nothing (§13). A comment
        // is a person asking and always reviews.
        trigger: event.kind === 'pull_request' ? 'lifecycle' : 'request',
        ...(prompt ? { prompt } : {}),
        ...(configFile ? { config: configFile } : {}),
      },
      { env: runEnv, logger, masker, onEvent: createProgressPrinter(process.stderr) },
    );
    const { result } = review.outcome;
    if (review.outcome.skipped) {
      const message = skippedMessage(review.outcome);
      say('notice', message);
      for (const warning of result.warnings) say('warning', warning);
      writeOutputs(env.GITHUB_OUTPUT, reviewOutputs(result, undefined, true));
      writeSummary(
        env.GITHUB_STEP_SUMMARY,
        `## reviewbot\n\n${message[0]!.toUpperCase()}${message.slice(1)}.`,
      );
      return failOnVerdict(result.verdict, failOn, say);
    }
    stdout.write(
      formatReview(result, {
        color: false,
        title: `${event.repoFullName}#${event.prNumber} "${review.pullRequest.title}"`,
        postedLine: review.posted
          ? `Posted as a ${review.posted.kind}: ${review.posted.posted.url}`
          : 'Not posted (dry_run).',
      }),
    );
    resumeCommands();
    for (const warning of result.warnings) say('warning', warning);
    writeOutputs(env.GITHUB_OUTPUT, reviewOutputs(result, review.posted, false));
    writeSummary(env.GITHUB_STEP_SUMMARY, `## reviewbot\n\n${result.body}`);
    return failOnVerdict(result.verdict, failOn, say);
  } catch (error) {
    say('error', describeError(error));
    return error instanceof ReviewbotError ? error.exitCode : 1;
  }
}
