/**
 * What the bot remembers of a pull request (CONTRACT §13), read back from the platform in one pass:
 * the latest review marker among the bot's own comments and review bodies, and the bot's own
 * inline threads with their finding markers and resolved/outdated state. Nothing is stored anywhere
 * else, so the CLI, standalone and cluster mode share it.
 */
import { AuthError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ExistingComment, Platform, ReviewThread } from '../../platforms/types.js';
import { parseFindingMarker, parseReviewMarker, type FindingMarker, type ReviewMarker } from './markers.js';

/** One earlier finding of the bot: its thread plus the marker of its first comment. */
export interface EarlierFinding {
  thread: ReviewThread;
  marker: FindingMarker;
}

/** The bot's memory of one pull request. */
export interface MemoryState {
  /** The newest review marker of the bot, when it reviewed this pull request before. */
  lastReview?: ReviewMarker;
  /** The bot's inline threads that carry a finding marker (open, resolved and outdated). */
  findings: EarlierFinding[];
}

/**
 * How far a review marker's `at` (the bot's clock, before posting) may lie after the comment's
 * creation time (the platform's clock, often whole seconds) before the marker is not believed.
 */
export const MARKER_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The newest review marker in `comments` written by the bot (`botNames`, lower-cased), read only
 * where the bot writes it: at the end of a review body or conversation comment (never an inline
 * comment). A marker in anybody else's comment is ignored, and so is one whose `at` lies after the
 * comment's creation time (beyond `MARKER_CLOCK_SKEW_MS`) or whose comment has no creation time.
 * "Newest" is by the comment's creation time, then by `at` (reviews posted within one second).
 */
export function lastReviewMarker(
  comments: ExistingComment[],
  botNames: Set<string>,
): ReviewMarker | undefined {
  let last: { marker: ReviewMarker; created: number; at: number } | undefined;
  for (const comment of comments) {
    if (comment.kind === 'review_comment' || !botNames.has(comment.authorUsername.toLowerCase())) continue;
    const marker = parseReviewMarker(comment.body);
    if (!marker) continue;
    const created = Date.parse(comment.createdAt);
    const at = Date.parse(marker.at);
    if (Number.isNaN(created) || at > created + MARKER_CLOCK_SKEW_MS) continue;
    if (!last || created > last.created || (created === last.created && at >= last.at)) {
      last = { marker, created, at };
    }
  }
  return last?.marker;
}

/** The bot's threads that carry a finding marker. */
export function earlierFindings(threads: ReviewThread[], botNames: Set<string>): EarlierFinding[] {
  const out: EarlierFinding[] = [];
  for (const thread of threads) {
    if (!botNames.has(thread.authorUsername.toLowerCase())) continue;
    const marker = parseFindingMarker(thread.body);
    if (marker) out.push({ thread, marker });
  }
  return out;
}

/**
 * Loads the memory: the review marker from `comments` (already fetched by the review) and the
 * threads from `listReviewThreads` (none when the platform cannot list them). With a `logger`, a
 * failure to list threads other than AuthError is logged and the memory has no threads.
 * @throws AuthError from the platform; PlatformError too when no `logger` is given.
 */
export async function loadMemoryState(
  platform: Platform,
  repoFullName: string,
  prNumber: number,
  comments: ExistingComment[],
  botNames: Set<string>,
  logger?: Logger,
): Promise<MemoryState> {
  let threads: ReviewThread[] = [];
  try {
    threads = platform.listReviewThreads ? await platform.listReviewThreads(repoFullName, prNumber) : [];
  } catch (error) {
    // Without the threads the review still runs; it just cannot drop repeats or resolve threads.
    if (error instanceof AuthError || !logger) throw error;
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'could not list review threads',
    );
  }
  const lastReview = lastReviewMarker(comments, botNames);
  return { ...(lastReview ? { lastReview } : {}), findings: earlierFindings(threads, botNames) };
}
