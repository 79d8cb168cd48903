/** Records of the review pipeline (CONTRACT §7). */
import type { DiffSide } from '../platforms/types.js';

/** One comment as the model proposes it (CONTRACT §7 "Agent review output"), after validation. */
export interface ProposedComment {
  path: string;
  line: number;
  side: DiffSide;
  startLine?: number;
  body: string;
  suggestion?: string;
}

/** The model's review: a summary plus proposed inline comments. */
export interface AgentReviewOutput {
  summary: string;
  comments: ProposedComment[];
}

/** A finding kept inline, or a rejected one folded into the body; same shape (CONTRACT §7). */
export interface Finding {
  path: string;
  line: number;
  side: DiffSide;
  startLine?: number;
  body: string;
  suggestion?: string;
}

/** Token counts reported by the provider. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What `executeReview()` returns; nothing has been posted yet (CONTRACT §7). */
export interface ExecuteReviewResult {
  summary: string;
  /** Findings whose lines are on the diff: postable inline. */
  findings: Finding[];
  /** Findings not on the diff, folded into `body` under "Additional notes (not in diff)". */
  rejected: Finding[];
  /** Markdown review body to post. */
  body: string;
  sessionId: string;
  model: string;
  usage: TokenUsage;
  /** Wall-clock time of the whole review, ms. */
  durationMs: number;
}
