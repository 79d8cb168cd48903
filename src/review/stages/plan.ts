/**
 * The plan stage of a review (CONTRACT §15): what every part's prompt adds (review plan, repository
 * rules, learnings), and the split of the kept files into parts whose whole prompt — not only the
 * diff — stays within `review.max_diff_tokens`.
 */
import type { ExistingComment } from '../../platforms/types.js';
import type { ReviewLimits } from '../limits.js';
import { withoutOwnMarker } from '../memory/index.js';
import { planParts, type PartPlan } from '../parts.js';
import { buildReviewSystemPrompt } from '../prompt.js';
import { partLimitsFor } from '../run-parts.js';
import type { LoadedReview } from './load.js';
import type { TriagedReview } from './triage.js';
import type { ReviewContext } from './types.js';

/** Input of `planStage`. */
export interface PlanStageInput {
  loaded: LoadedReview;
  triaged: TriagedReview;
  limits: ReviewLimits;
}

/** What the plan stage decided. */
export interface PlannedReview {
  plan: PartPlan;
  /** Text appended to every part's prompt (plan note, rules, learnings); may be ''. */
  promptExtra: string;
  /** Ids of the learnings shown to the model (§20). */
  learningsApplied: string[];
  /** The bot's own comments, hidden markers removed (§7's "already posted" compares without them). */
  botComments: ExistingComment[];
}

/** Plans the review's parts. */
export async function planStage(ctx: ReviewContext, stage: PlanStageInput): Promise<PlannedReview> {
  const { input } = ctx;
  const { loaded, triaged, limits } = stage;
  const { triage } = triaged;
  const learned = await loaded.taught.forPaths(triage.kept.map((f) => f.path));
  const promptExtra = [loaded.memory.promptExtra, learned.promptSection].filter((p) => p !== '').join('\n\n');
  const plan = planParts(
    triage.kept,
    partLimitsFor(limits, {
      systemPrompt: buildReviewSystemPrompt(),
      pr: loaded.pullRequest,
      existingComments: loaded.comments,
      userPrompt: [input.prompt ?? '', promptExtra].filter((p) => p !== '').join('\n\n'),
      history: input.history ?? [],
    }),
  );
  ctx.phase(
    'diff',
    `${triage.kept.length} files to review in ${plan.parts.length} part(s), ${triage.skipped.length} skipped, ${plan.notReviewed.length} over the budget`,
  );
  // §7's "identical to one already posted" compares bodies without the hidden markers (§13).
  const botComments = loaded.comments
    .filter((c) => loaded.botNames.has(c.authorUsername.toLowerCase()))
    .map((c) => ({ ...c, body: withoutOwnMarker(c.body) }));
  return { plan, promptExtra, learningsApplied: learned.applied, botComments };
}
