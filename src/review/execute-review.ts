/**
 * `executeReview()` (seed "Handlers"): a review of one pull request as its list of stages — load
 * (workspace, diff, comments, memory, learnings), triage, plan, run parts, synthesise, settle memory,
 * verify (§22), assemble — each a function of `src/review/stages/` with a typed input and output. Posts nothing;
 * used by the CLI and the webhook REVIEWER alike.
 */
import { DEFAULT_LIMITS } from './limits.js';
import { conversationAfter } from './part-session.js';
import { assembleStage } from './stages/assemble.js';
import { fetchPullRequest, loadReview, withReviewWorkspace } from './stages/load.js';
import { planStage } from './stages/plan.js';
import { openReviewSession, runPartsStage } from './stages/run-parts.js';
import { settleMemoryStage } from './stages/settle-memory.js';
import { synthesiseStage } from './stages/synthesise.js';
import { triageStage } from './stages/triage.js';
import { verifyStage } from './stages/verify.js';
import { reviewContext, type ExecuteReviewInput, type ReviewOutcome } from './stages/types.js';

export type { ExecuteReviewInput, ReviewEvent, ReviewOutcome, ReviewPhase } from './stages/types.js';

/**
 * Runs a review of `repoFullName#prNumber` without posting it.
 * @throws AuthError / PlatformError from the platform, GitError from git, AgentError from the agent.
 */
export async function executeReview(input: ExecuteReviewInput): Promise<ReviewOutcome> {
  const ctx = reviewContext(input);
  const { platform } = input;
  const limits = input.limits ?? DEFAULT_LIMITS;
  const pullRequest = await fetchPullRequest(ctx);
  return withReviewWorkspace(ctx, async () => {
    const load = await loadReview(ctx, pullRequest);
    if (load.kind === 'skipped') return load.outcome;
    const { loaded } = load;
    const triaged = await triageStage(ctx, { loaded, limits });
    const planned = await planStage(ctx, { loaded, triaged, limits });
    const session = openReviewSession(ctx, loaded.workspace.dir, limits);
    try {
      const parts = await runPartsStage(ctx, { session, loaded, planned, limits });
      const { skippedPaths } = triaged;
      const synthesised = await synthesiseStage({ session, pullRequest, parts, skippedPaths });
      const { outcome } = synthesised;
      const settled = await settleMemoryStage({ platform, loaded, triaged, planned, outcome });
      const tree = loaded.workspace.dir;
      const verified = await verifyStage(ctx, {
        session,
        settled,
        tree,
        baseSha: pullRequest.baseSha,
        limits,
      });
      const { result, inlineBodies, bodyExtras } = assembleStage(ctx, {
        platform,
        loaded,
        triaged,
        planned,
        outcome,
        verified,
        meter: session.meter,
        maxCostUsd: limits.maxCostUsd,
      });
      const run = synthesised.written.results.find((r) => r?.run)?.run;
      return {
        result,
        pullRequest,
        commitSha: pullRequest.headSha,
        messages: conversationAfter(input.history ?? [], synthesised.written, run),
        inlineBodies,
        bodyExtras,
        addressed: settled.addressed,
      };
    } finally {
      session.dispose();
    }
  });
}
