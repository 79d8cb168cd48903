/**
 * What a review's parts produced (CONTRACT §15, §18), shared by the parts' runner (`runParts`), the
 * one-summary call (`synthesizeSummary`) and the stages after them. A types-only module, so that
 * neither of those two imports the other.
 */
import type { PartResult } from './run-part.js';
import type { ProposedComment } from './types.js';

/** What the synthesis call cost the review, for the receipt. */
export interface SynthesisRun {
  /** Agent runs started (0 when the cap or a cancelled review kept it from being sent). */
  runs: number;
  turns: number;
  /** True when its summary opens the review; false when the parts' summaries were kept. */
  used: boolean;
}

/** The merged outcome of every part. */
export interface PartsOutcome {
  /** Per part, in part order; `undefined` for a part never started (cost cap). */
  results: Array<PartResult | undefined>;
  /**
   * The summary the body opens with: a single part's own; for several parts, their summaries joined
   * under one heading (`joinSummaries`), until one summary of them all replaces it (`synthesizeSummary`).
   */
  summary: string;
  comments: ProposedComment[];
  /** Raw text of parts whose output never parsed, for the body. */
  unparsed: string[];
  /** The synthesis call of a multi-part review (§18), once it was tried; counted in the receipt. */
  synthesis?: SynthesisRun;
}
