/**
 * Runs a review's parts (CONTRACT §15): one agent run per part, at most `review.max_parallel_runs`
 * at once, under the review's cost cap; then merges what they found into one list of proposed
 * comments and their summaries (the caller has one summary of them written, §18, then filters and
 * posts ONE review).
 */
import { withoutHarnessText } from '../agent/tools/submitted-review.js';
import type { ConversationMessage } from '../agent/types.js';
import type { ExistingComment, PullRequestInfo } from '../platforms/types.js';
import { annotateDiff } from './annotate.js';
import { estimateTokens, type DiffPart, type PartLimits } from './parts.js';
import { buildReviewPrompt } from './prompt.js';
import type { PartsOutcome } from './parts-outcome.js';
import { runReviewPart, type PartResult, type PartRunContext } from './run-part.js';
import type { ProposedComment } from './types.js';

/** Input of `runParts`. */
export interface RunPartsInput {
  context: PartRunContext;
  parts: DiffPart[];
  pr: PullRequestInfo;
  existingComments: ExistingComment[];
  userPrompt: string;
  /** Text appended to every part's prompt (§13/§14: review plan, repository rules); may be ''. */
  promptExtra?: string;
  history: ConversationMessage[];
  resumeSessionId?: string | undefined;
  /** `review.max_parallel_runs`. */
  maxParallelRuns: number;
}

export type { PartsOutcome } from './parts-outcome.js';

/** Heading of the parts' summaries when no single summary of them could be written (§18). */
export const JOINED_SUMMARIES_HEADING = '### Summary';

/**
 * Several parts' summaries as one section: one heading, the summaries in part order, no part
 * numbering (§18: "Part 2 of 5" never reaches the body). One summary (or none) is returned as is.
 */
export function joinSummaries(summaries: string[]): string {
  if (summaries.length <= 1) return summaries[0] ?? '';
  return [JOINED_SUMMARIES_HEADING, ...summaries].join('\n\n');
}

/** Runs `tasks` with at most `limit` in flight, in order of start; resolves when all settle. */
async function pool<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < count && failure === undefined) {
      const i = next++;
      try {
        results[i] = await task(i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Runs every part and merges the results. A single part keeps the conversation (`history`,
 * `resumeSessionId`); several parts each start from `history`, and only the first resumes. A part
 * whose run fails is recorded (`PartResult.error`; its files are then listed as not reviewed) and
 * the others go on; only a cancellation from outside stops them all.
 * @throws the first part's error when every part that ran failed, or when the review was cancelled.
 */
export async function runParts(input: RunPartsInput): Promise<PartsOutcome> {
  const count = input.parts.length;
  const results = await pool<PartResult | undefined>(count, input.maxParallelRuns, async (i) => {
    if (input.context.cappedNow()) return undefined;
    const part = input.parts[i]!;
    const prompt =
      buildReviewPrompt({
        pr: input.pr,
        annotatedDiff: annotateDiff(part.files, { maxChars: Number.MAX_SAFE_INTEGER }),
        existingComments: input.existingComments,
        userPrompt: input.userPrompt,
        part: { index: i + 1, count },
      }) + (input.promptExtra ? `\n\n${input.promptExtra}` : '');
    return runReviewPart(input.context, {
      prompt,
      history: input.history,
      resumeSessionId: i === 0 ? input.resumeSessionId : undefined,
      label: count > 1 ? `part ${i + 1}/${count}` : '',
    });
  });

  // A part failed when its run errored before any output (a failed re-ask keeps the first output).
  const ran = results.filter((r): r is PartResult => r !== undefined && r.runs > 0);
  const failed = ran.filter((r) => r.error !== undefined && r.parsed === undefined);
  if (ran.length > 0 && failed.length === ran.length) throw failed[0]!.error;

  const summaries: string[] = [];
  const comments: ProposedComment[] = [];
  const unparsed: string[] = [];
  for (const result of results) {
    const parsed = result?.parsed;
    if (parsed?.ok) {
      const summary = parsed.output.summary.trim();
      if (summary) summaries.push(summary);
      comments.push(...parsed.output.comments);
    } else if (parsed && result?.run) {
      // Tool answers (e.g. `Review submitted.`) are harness text, never a review (issue 16).
      const raw = withoutHarnessText(
        result.run.text || (result.run.submitted ? JSON.stringify(result.run.submitted) : ''),
      ).trim();
      if (raw) unparsed.push(raw);
    }
  }
  return { results, summary: joinSummaries(summaries), comments, unparsed };
}

/**
 * Tokens allowed for the definitions of the REVIEWER tools (Read, Glob, Grep, submit_review: about
 * 3,100 characters of names, descriptions and JSON schemas) and the provider's tool-use preamble.
 */
const TOOL_DEFINITIONS_TOKENS = 1_500;

/** What every part's prompt carries besides its diff. */
export interface PromptFrame {
  systemPrompt: string;
  pr: PullRequestInfo;
  existingComments: ExistingComment[];
  userPrompt: string;
  history: ConversationMessage[];
}

/**
 * The part limits under which a whole prompt (system prompt, tool definitions, earlier messages,
 * the pull request's text and comments, and the part's diff) stays within `review.max_diff_tokens`:
 * the diff budget is that minus the rest, estimated as the budget estimates (`estimateTokens`).
 * Never below a quarter of the budget (a frame that large is sent over budget rather than split
 * into slivers).
 */
export function partLimitsFor(limits: PartLimits, frame: PromptFrame): PartLimits {
  const prompt = buildReviewPrompt({
    pr: frame.pr,
    annotatedDiff: '',
    existingComments: frame.existingComments,
    userPrompt: frame.userPrompt,
    part: { index: 1, count: 2 },
  });
  const historyChars = frame.history.reduce((n, m) => n + m.content.length, 0);
  const frameTokens =
    estimateTokens(frame.systemPrompt.length + prompt.length + historyChars) + TOOL_DEFINITIONS_TOKENS;
  const maxDiffTokens = Math.max(Math.floor(limits.maxDiffTokens / 4), limits.maxDiffTokens - frameTokens);
  return { ...limits, maxDiffTokens };
}
