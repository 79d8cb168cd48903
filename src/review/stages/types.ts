/**
 * The shapes shared by `executeReview` and its stages: the review's input, its outcome, the progress
 * it reports, and the context every stage receives.
 */
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import type { AgentEvent, AgentRunner, ConversationMessage } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { Platform, PullRequestInfo } from '../../platforms/types.js';
import type { SecretMasker } from '../../secrets.js';
import type { ReviewBodyExtras } from '../body.js';
import type { ReviewLearningsInput } from '../learnings-step.js';
import type { ReviewLimits } from '../limits.js';
import type { EarlierFinding, ReviewTrigger } from '../memory/index.js';
import type { ServerReviewSettings } from '../repo-rules.js';
import type { ExecuteReviewResult, Severity } from '../types.js';

/** Phases reported while a review runs. */
export type ReviewPhase = 'pull-request' | 'workspace' | 'diff' | 'agent' | 'parse' | 'verify' | 'filter';

/** Progress of a review: a phase message, or an event of the agent. */
export type ReviewEvent = { type: 'phase'; phase: ReviewPhase; message: string } | AgentEvent;

/** The `review.verify*` settings of a review (snake_case, as in the configuration). */
export interface ReviewVerifySettings {
  /** `on`: verify the findings before posting; `off` (default): the stage does nothing. */
  verify: 'off' | 'on';
  /** The least severe finding verified. */
  verify_min_severity: Severity;
  /** Findings verified per review at most. */
  verify_max: number;
  /** Wall-clock limit of one verification run, seconds. */
  verify_timeout_seconds: number;
}

/** Input of `executeReview`. */
export interface ExecuteReviewInput {
  platform: Platform;
  runner: AgentRunner;
  repoFullName: string;
  prNumber: number;
  /** The pull request when already fetched (saves one API call). */
  pullRequest?: PullRequestInfo;
  /** Extra instructions from the requester. */
  prompt?: string;
  /** Earlier messages of this pull request's REVIEWER conversation. */
  history?: ConversationMessage[];
  /** Session to resume (code-agent CLI runner); the API runner continues from `history` instead. */
  resumeSessionId?: string;
  /** Workspace root (`workspace.base_dir`). */
  baseDir: string;
  /**
   * Review this existing directory as it is (`review --local`, §17): no clone and no workspace
   * lock; its files are what the agent reads.
   */
  workspaceDir?: string;
  maxTurns: number;
  /** Configured bot usernames (their comments count as the bot's own). */
  botUsernames?: string[];
  logger: Logger;
  masker?: SecretMasker;
  onEvent?: (event: ReviewEvent) => void;
  signal?: AbortSignal;
  /** §15 budgets, cost cap and prices (`reviewLimitsOf(config)`); default `DEFAULT_LIMITS`. */
  limits?: ReviewLimits;
  /**
   * Reads a file of the pull request's BASE commit (`.gitattributes` for triage); default: the
   * platform's `getFileContent` when it has one, else git in the workspace.
   */
  readBaseFile?: (path: string) => Promise<string | undefined>;
  /** The server's `review.*` settings (§13, §14); default: incremental, nothing ignored. */
  reviewSettings?: ServerReviewSettings;
  /** `lifecycle` for a trigger (an unchanged head runs no agent), `request` (default) when asked. */
  trigger?: ReviewTrigger;
  /**
   * Called once when the review is going to run (not for a lifecycle trigger on an already-reviewed
   * head), with the pull request whose head it reviews: where progress starts (§18). Must not throw.
   */
  onReviewing?: (pullRequest: PullRequestInfo) => void;
  /** The repository's learnings (§20): dismissals read, learnings shown, dismissed findings dropped. */
  learnings?: ReviewLearningsInput;
  /**
   * §22 `review.verify*` (`verifySettingsOf(config)`); default: off (no verification stage, and no
   * `refuted` nor `receipt.verification` in the result).
   */
  verify?: ReviewVerifySettings;
  /**
   * The host's tool sandbox (`setUpToolSandbox`), in which verification runs; without one (or one
   * that is off or unavailable) nothing is verified and the receipt says why.
   */
  sandbox?: ToolSandbox;
}

/** The result plus what posting and the session store need. */
export interface ReviewOutcome {
  result: ExecuteReviewResult;
  pullRequest: PullRequestInfo;
  /** Head SHA the findings' line numbers refer to. */
  commitSha: string;
  /** Conversation after this review, for the session store. */
  messages: ConversationMessage[];
  /** The platform's rendering of each kept finding's inline body, same order as `result.findings`. */
  inlineBodies: string[];
  /** True when nothing is to be posted: a lifecycle trigger on the already-reviewed head (§13). */
  skipped?: boolean;
  /** Body sections of review memory (§13), for a body rebuilt when posting falls back. */
  bodyExtras?: ReviewBodyExtras;
  /** The bot's open threads whose code changed (listed in the body): `postReview` resolves them (§13). */
  addressed?: EarlierFinding[];
}

/** What every stage of one review receives. */
export interface ReviewContext {
  input: ExecuteReviewInput;
  logger: Logger;
  /** `Date.now()` when the review started. */
  started: number;
  /** Reports progress to `input.onEvent`; a listener that throws is logged, never fatal. */
  emit(event: ReviewEvent): void;
  /** Reports a phase message. */
  phase(phase: ReviewPhase, message: string): void;
}

/** The context of a review starting now. */
export function reviewContext(input: ExecuteReviewInput): ReviewContext {
  const { logger } = input;
  const emit = (event: ReviewEvent): void => {
    try {
      input.onEvent?.(event);
    } catch (error) {
      logger.warn({ err: error }, 'progress listener failed');
    }
  };
  return {
    input,
    logger,
    started: Date.now(),
    emit,
    phase: (phase, message) => emit({ type: 'phase', phase, message }),
  };
}
