/** What `prepareMemory` decides before a review's diff is built (CONTRACT §13, §14). */
import type { PullRequestFile } from '../../platforms/types.js';
import type { EffectiveRules } from '../repo-rules.js';
import type { ReviewPlan } from './plan.js';
import type { MemoryState } from './state.js';

/** What started the review: a lifecycle trigger (no agent on an unchanged head) or a person asking. */
export type ReviewTrigger = 'lifecycle' | 'request';

/** What `prepareMemory` decided. */
export interface PreparedMemory {
  rules: EffectiveRules;
  state: MemoryState;
  plan: ReviewPlan;
  /**
   * True for a lifecycle trigger on the already-reviewed head, or with no reviewable change since
   * the last review: run no agent, post nothing.
   */
  skipAgent: boolean;
  /** Files the model is shown: the plan's files minus ignored ones. */
  shownFiles: PullRequestFile[];
  /** Prompt text to append after the review prompt (plan note, rules, guidelines); may be ''. */
  promptExtra: string;
  /**
   * True when `path`, one of the pull request's files, matches `review.ignore` (server or
   * repository); other paths are matched by `settleMemory` itself.
   */
  isIgnored(path: string): boolean;
}
