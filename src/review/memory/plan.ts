/**
 * Incremental planning (CONTRACT §13): from the bot's last reviewed head X and the current head,
 * decide what this review covers — `unchanged` (head is still X), `incremental` (X is an ancestor:
 * only X..head), or `full` (no earlier review, incremental reviews off, or X is not an ancestor after
 * a force-push or rebase; the reason is stated).
 */
import { AuthError } from '../../errors.js';
import type { Platform, PullRequestFile } from '../../platforms/types.js';
import type { IncrementalInfo } from '../types.js';

/** What a review covers, and the files the model is shown. */
export interface ReviewPlan {
  info: IncrementalInfo;
  /** Files whose hunks go into the prompt: the pull request's files, or the changes since X. */
  files: PullRequestFile[];
}

/** Input of `planReview`. */
export interface PlanInput {
  platform: Platform;
  repoFullName: string;
  prNumber: number;
  headSha: string;
  /** Head SHA of the bot's last review, if any. */
  lastHead: string | undefined;
  /** `review.incremental` after repository rules. */
  incremental: boolean;
  /** The pull request's files (base...head). */
  prFiles: PullRequestFile[];
}

/** Short form of a SHA for messages. */
export function shortSha(sha: string): string {
  return sha.slice(0, 12);
}

/**
 * Plans the review. The incremental files are the changes X..head restricted to the pull request's
 * own files (so changes merged in from the base branch are not reviewed again). X must be one of
 * the pull request's commits (`listCommitShas`, when the platform has it and listed them all),
 * else the review is full: a marker naming any other ancestor is not believed (issue 27).
 * A failed comparison or commit listing (other than AuthError) gives a full review that names it.
 * @throws AuthError from the platform's compare or commit-listing call.
 */
export async function planReview(input: PlanInput): Promise<ReviewPlan> {
  const { lastHead, headSha, prFiles } = input;
  const full = (reason?: string): ReviewPlan => ({
    info: { sinceSha: lastHead ?? null, mode: 'full', ...(reason ? { reason } : {}) },
    files: prFiles,
  });
  // `review.incremental: false` turns all of §13's planning off: every review is a full one.
  if (!lastHead || !input.incremental) return full();
  if (lastHead === headSha) return { info: { sinceSha: lastHead, mode: 'unchanged' }, files: prFiles };
  if (!input.platform.compareCommits) return full('this platform cannot compare commits');
  let compared: Awaited<ReturnType<NonNullable<Platform['compareCommits']>>>;
  try {
    compared = await input.platform.compareCommits(input.repoFullName, lastHead, headSha);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    return full(`the changes since ${shortSha(lastHead)} could not be compared (${detail})`);
  }
  if (!compared || compared.status !== 'ahead') {
    return full(
      `the previously reviewed head ${shortSha(lastHead)} is not an ancestor of ${shortSha(headSha)} (force-push or rebase)`,
    );
  }
  if (compared.truncated) {
    return full(
      `the changes since ${shortSha(lastHead)} touch more files than the platform's comparison lists`,
    );
  }
  const notInPr = await notACommitOfThePr(input, lastHead);
  if (notInPr) return full(notInPr);
  const inPr = new Set(prFiles.map((f) => f.path));
  const files = compared.files.filter((f) => inPr.has(f.path));
  return { info: { sinceSha: lastHead, mode: 'incremental' }, files };
}

/** Why `lastHead` cannot start an incremental review, or undefined when it is a commit of the PR. */
async function notACommitOfThePr(input: PlanInput, lastHead: string): Promise<string | undefined> {
  if (!input.platform.listCommitShas) return undefined;
  let shas: string[] | null;
  try {
    shas = await input.platform.listCommitShas(input.repoFullName, input.prNumber);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    return `the commits of this pull request could not be listed (${detail})`;
  }
  // A list the platform may have cut short cannot tell; the comparison above already holds.
  if (shas === null || shas.includes(lastHead)) return undefined;
  return `the previously reviewed head ${shortSha(lastHead)} is not a commit of this pull request`;
}

/** The review-body notice for a plan, or '' (only full reviews with a reason say something). */
export function planNotice(plan: ReviewPlan): string {
  const { info } = plan;
  if (info.mode === 'incremental' && info.sinceSha) {
    return `_Incremental review: changes since ${shortSha(info.sinceSha)}._`;
  }
  if (info.mode === 'full' && info.reason) return `> **Full review:** ${info.reason}.`;
  return '';
}

/** The prompt note telling the model what an incremental review covers, or ''. */
export function planPromptNote(plan: ReviewPlan): string {
  const { info } = plan;
  if (info.mode !== 'incremental' || !info.sinceSha) return '';
  return [
    `This is an incremental review: you reviewed this pull request before at ${shortSha(info.sinceSha)}.`,
    'The annotated diff holds only the changes made since then; review those. You may still read any file.',
  ].join('\n');
}
