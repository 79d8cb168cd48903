/** What every agent tool of one run shares: the workspace, the Bash home, the masker, the sink. */
import type { SecretMasker } from '../../secrets.js';
import type { RunLauncher } from '../sandbox/launcher.js';
import type { ToolSandbox } from '../sandbox/types.js';
import type { SubmitMatchesInput } from './submit-matches.js';
import type { SubmitReviewInput } from './submitted-review.js';
import type { SubmitVerificationInput } from './submit-verification.js';
import { ToolError } from './tool-error.js';

/** Per-run context handed to the tool factories. */
export interface ToolContext {
  /** Real path (symlinks resolved) of the workspace root; every tool path is confined to it. */
  rootReal: string;
  /** HOME of Bash subprocesses: a directory outside the workspace, made for the run. */
  homeDir: string;
  /** Masks secrets in every tool output and error message before the model sees it. */
  masker: SecretMasker;
  /** Receives the arguments of each `submit_review` call (the runner keeps the last). */
  onSubmit: (review: SubmitReviewInput) => void;
  /** Receives the arguments of each `submit_matches` call (`reviewbot eval`'s judge, CONTRACT §23). */
  onSubmitMatches?: (matches: SubmitMatchesInput) => void;
  /** Receives the arguments of each `submit_verification` call (a verification run, CONTRACT §22). */
  onSubmitVerification?: (verification: SubmitVerificationInput) => void;
  /** Aborts running subprocesses (Bash) and long walks (Glob/Grep). */
  signal?: AbortSignal;
  /**
   * Which workspace paths Read, Glob and Grep may see, by workspace-relative POSIX path (`.` = the
   * root): true for a visible file and for every directory above one. `review --local` passes its
   * repository's tracked and untracked-but-not-ignored files (what a pull request's clone holds),
   * so a developer's `.env` or `node_modules` stays out of reach. Absent: every path is visible.
   */
  isVisible?: (relative: string) => boolean;
  /** Sandbox of Bash (CONTRACT §16); default: `auto` as detected on this host, no network. */
  sandbox?: ToolSandbox;
  /** The run's sandbox launcher (`RunLauncher`), closed by the runner with the run. */
  launcher?: RunLauncher;
}

/**
 * Wraps a tool body so that the model only ever sees masked text: the output, and any error
 * (re-thrown as `ToolError`, with the workspace's absolute path shown as `.`) pass through
 * `ctx.masker`. Errors still reach the model as error results; they never end the run.
 */
export function guardExecute<I>(
  ctx: ToolContext,
  body: (input: I) => Promise<string>,
): (input: I) => Promise<string> {
  return async (input: I) => {
    try {
      return ctx.masker.mask(await body(input));
    } catch (error) {
      const message = error instanceof ToolError ? error.message : describeToolFailure(error);
      throw new ToolError(ctx.masker.mask(message.split(ctx.rootReal).join('.')));
    }
  };
}

function describeToolFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return `file system error ${code}`;
  return error instanceof Error ? error.message : String(error);
}
