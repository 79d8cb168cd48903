/**
 * Posting a review result (CONTRACT §2): one review with the kept findings inline, or — when no
 * finding is postable inline — the body as a comment. If the platform still refuses an inline
 * comment (422), the findings are folded into the body and posted as a comment, so nothing is lost.
 */
import { PlatformError } from '../errors.js';
import { findingSeverity } from '../eval/severity.js';
import type { Logger } from '../logger.js';
import type { FindingsMetric } from '../metrics.js';
import type { Platform, Posted, ReplyTarget } from '../platforms/types.js';
import { buildReviewBody } from './body.js';
import { countFindings, markerSeverity } from './findings-metric.js';
import type { ReviewOutcome } from './execute-review.js';
import {
  addressedSection,
  neutraliseMarkers,
  resolveAddressed,
  type EarlierFinding,
} from './memory/index.js';

/** What was posted and how. */
export interface PostedReview {
  kind: 'review' | 'comment';
  posted: Posted;
}

/**
 * Resolves the threads `outcome` lists as addressed (§13), then posts it on its pull request.
 * `replyTarget` is where a plain comment goes (the thread of the mention, when there is one).
 * A thread the platform refuses to resolve (e.g. a GitLab Reporter's token) does not stop the
 * review: the body marks it as still open, and `outcome.result.body` becomes the body posted.
 * With `metric` (the server's), counts the findings posted (inline, or folded into one comment
 * when the platform refused them) and the threads resolved as addressed (§23), by severity.
 * @throws AuthError / PlatformError when posting fails.
 */
export async function postReview(
  platform: Platform,
  outcome: ReviewOutcome,
  replyTarget: ReplyTarget,
  logger: Logger,
  metric?: FindingsMetric,
): Promise<PostedReview> {
  const { pullRequest: pr } = outcome;
  const addressed = outcome.addressed ?? [];
  const resolved = await resolveAddressed(platform, pr.repoFullName, pr.number, addressed, logger);
  // A platform without thread resolution resolves nothing and says nothing about it.
  const unresolved = platform.resolveThread ? addressed.filter((f) => !resolved.includes(f)) : [];
  if (unresolved.length > 0) markUnresolved(outcome, addressed, new Set(unresolved));
  const posted = await postReviewOnly(platform, outcome, replyTarget, logger);
  countFindings(metric, platform.name, 'posted', outcome.result.findings.map(findingSeverity));
  countFindings(
    metric,
    platform.name,
    'addressed',
    resolved.map((f) => markerSeverity(f.marker)),
  );
  return posted;
}

/** Rewrites the addressed section of `outcome`'s body (and body extras) with `unresolved` marked open. */
function markUnresolved(
  outcome: ReviewOutcome,
  addressed: EarlierFinding[],
  unresolved: ReadonlySet<EarlierFinding>,
): void {
  const before = addressedSection(addressed);
  const after = addressedSection(addressed, unresolved);
  // The body holds the section as `buildReviewBody` neutralised it.
  outcome.result.body = outcome.result.body.replace(neutraliseMarkers(before), () =>
    neutraliseMarkers(after),
  );
  const extras = outcome.bodyExtras;
  if (extras?.after) {
    outcome.bodyExtras = { ...extras, after: extras.after.map((part) => (part === before ? after : part)) };
  }
}

async function postReviewOnly(
  platform: Platform,
  outcome: ReviewOutcome,
  replyTarget: ReplyTarget,
  logger: Logger,
): Promise<PostedReview> {
  const { result, pullRequest } = outcome;
  if (result.findings.length > 0) {
    try {
      const posted = await platform.submitReview(pullRequest.repoFullName, pullRequest.number, {
        body: result.body,
        commitSha: outcome.commitSha,
        comments: result.findings.map((f, i) => ({
          path: f.path,
          line: f.line,
          side: f.side,
          ...(f.startLine !== undefined ? { startLine: f.startLine } : {}),
          body: outcome.inlineBodies[i] ?? f.body,
        })),
      });
      return { kind: 'review', posted };
    } catch (error) {
      if (!(error instanceof PlatformError) || error.status !== 422) throw error;
      logger.warn(
        { err: error.message },
        'the platform refused the inline comments; posting them in one comment',
      );
      const body = buildReviewBody(
        result.summary,
        [...result.findings, ...result.rejected],
        outcome.bodyExtras,
      );
      return { kind: 'comment', posted: await platform.postReply(replyTarget, body) };
    }
  }
  return { kind: 'comment', posted: await platform.postReply(replyTarget, result.body) };
}
