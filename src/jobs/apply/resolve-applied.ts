/**
 * After an `apply` pushed its commit (CONTRACT §24): each applied finding counts once as
 * `addressed` (§23, `reviewbot_findings_total`), and its thread is resolved (§13). A thread the
 * platform refuses to resolve is reported with a reason people can read and that holds no secret
 * (never the platform's own error text), so the reply does not claim it was resolved.
 */
import { AuthError, PlatformError } from '../../errors.js';
import type { Platform, ReviewComment } from '../../platforms/types.js';
import { countFindings, markerSeverity } from '../../review/findings-metric.js';
import type { EarlierFinding } from '../../review/memory/state.js';
import type { JobContext } from '../job-context.js';

/** An applied finding whose thread is still open on the platform's page, and why. */
export interface UnresolvedThread {
  finding: EarlierFinding;
  /** Plain text, no secret, no server text (e.g. "the bot's account lacks the permission …"). */
  reason: string;
}

/** Why resolving failed with `error`, from its kind and HTTP status only. */
export function refusalReason(error: unknown): string {
  if (error instanceof AuthError) return "the platform rejected the bot's credentials";
  const status = error instanceof PlatformError ? error.status : undefined;
  if (status === 403) return "the bot's account lacks the permission to resolve threads on this repository";
  if (status === 404) return 'the platform did not find the thread, or the bot may not see it';
  if (status !== undefined) return `the platform answered HTTP ${status}`;
  return 'the platform could not be reached';
}

/**
 * Counts `findings` as addressed on `ctx.metrics`, then resolves their threads. Returns the
 * threads left open (the platform refused, or has no thread resolution), each with its reason;
 * failures are logged, never thrown.
 */
export async function settleApplied(
  platform: Platform,
  comment: ReviewComment,
  findings: EarlierFinding[],
  ctx: JobContext,
): Promise<UnresolvedThread[]> {
  countFindings(
    ctx.metrics,
    platform.name,
    'addressed',
    findings.map((f) => markerSeverity(f.marker)),
  );
  if (!platform.resolveThread) {
    return findings.map((finding) => ({ finding, reason: 'this platform has no way to resolve threads' }));
  }
  const open: UnresolvedThread[] = [];
  for (const finding of findings) {
    try {
      const marked = await platform.resolveThread(comment.repoFullName, comment.prNumber, finding.thread.id);
      if (marked) open.push({ finding, reason: marked.reason });
    } catch (error) {
      ctx.logger.warn(
        {
          err: error instanceof Error ? ctx.masker.mask(error.message) : String(error),
          thread: finding.thread.id,
        },
        'could not resolve an applied thread',
      );
      open.push({ finding, reason: refusalReason(error) });
    }
  }
  return open;
}
