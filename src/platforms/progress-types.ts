/**
 * Progress reports and the verdict gate as platforms show them next to the head commit (CONTRACT
 * §18, §21). Re-exported by `types.ts`.
 */
/** How a job ended, as its progress report shows it (CONTRACT §18). */
export type ProgressConclusion = 'neutral' | 'success' | 'failure';

/** What a progress report says: a short line next to the commit, and optional Markdown details. */
export interface ProgressReport {
  /**
   * One line (commit status `description`, check run `output.title`); the caller cuts it to the
   * platform's `progressLimits.description` and masks secrets in it.
   */
  description: string;
  /** Markdown details (check run `output.summary`: the receipt); platforms without a place drop it. */
  summary?: string;
  /** A web page about the job's result (e.g. the posted review), as the status' link. */
  url?: string;
}

/** The commit a progress report is shown on. */
export interface ProgressTarget {
  repoFullName: string;
  prNumber: number;
  /** Full head SHA of the pull request when the job started. */
  headSha: string;
  /** The pull request's web page (Bitbucket's build status needs a `url`). */
  prUrl?: string;
}

/** A started progress report; `finish` completes it once. */
export interface ProgressHandle {
  /**
   * Marks the report done with `conclusion` (check run: the conclusion itself; commit statuses:
   * `neutral` and `success` → success, `failure` → failure/failed).
   * @throws AuthError / PlatformError like any other call.
   */
  finish(conclusion: ProgressConclusion, report: ProgressReport): Promise<void>;
}

/** Lengths a platform accepts in a progress report, characters (from its API documentation). */
export interface ProgressLimits {
  description: number;
  summary: number;
}

/** Name of the verdict gate's status next to the head commit (CONTRACT §21). */
export const GATE_STATUS_NAME = 'reviewbot/verdict';

/**
 * Bitbucket's key of the verdict gate's build status (CONTRACT §21): build status keys are
 * identifiers, so `reviewbot-verdict` (its `name` is {@link GATE_STATUS_NAME}).
 */
export const GATE_BUILD_KEY = 'reviewbot-verdict';

/** What the verdict gate shows (CONTRACT §21): red while the verdict blocks, green otherwise. */
export interface GateReport {
  /** `failure` (failure/failed/FAILED) when blocking; `success` (success/SUCCESSFUL/succeeded) otherwise. */
  state: 'success' | 'failure';
  /**
   * One line: the verdict's counts, or who overrode it and why; the caller cuts it to the
   * platform's `progressLimits.description` and masks secrets in it.
   */
  description: string;
  /** Markdown details (GitHub check run `output.summary`); platforms without a place drop it. */
  summary?: string;
  /** A web page about the verdict (the posted review), as the status' link. */
  url?: string;
}
