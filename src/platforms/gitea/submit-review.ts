/**
 * A review on Gitea (`POST /repos/{owner}/{repo}/pulls/{index}/reviews`, event `COMMENT`): the body
 * plus one inline comment per finding at Gitea's position — `new_position` = the new-file line of
 * an added or unchanged line, `old_position` = the old-file line of a removed line, the other 0
 * (`routers/api/v1/repo/pull_review.go` turns them into one signed line, negative = old side).
 *
 * Gitea places a comment by that line only: it does not check that the line is in the diff
 * (`services/pull/review.go` cuts the diff hunk around the line and stores an empty one when the line
 * is outside every hunk, so the comment shows in no diff view). Each comment is therefore checked
 * here against the pull request's diff; one that is not on its side of the diff is listed in the
 * body under "Comments that could not be placed on the diff". Gitea has no multi-line comments: a
 * range is anchored at its last line, and says so.
 */
import { codeSpan, neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import { FileLines } from '../../diff/positions.js';
import type { InlineComment, Posted, ReviewSubmission } from '../types.js';
import type { CreatePullReviewComment, GiteaClient } from './client.js';
import { splitUnifiedDiff } from '../../diff/unified.js';

/** Heading of the body section listing comments that could not be posted inline. */
export const UNPLACED_HEADING = 'Comments that could not be placed on the diff';

/** Runs a Gitea call, mapping failures with `platformCall`. */
export type GiteaCall = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

interface Unplaced {
  comment: InlineComment;
  reason: string;
}

function rangeText(c: InlineComment): string {
  return c.startLine !== undefined && c.startLine < c.line ? `${c.startLine}-${c.line}` : String(c.line);
}

function unplacedSection(unplaced: Unplaced[]): string {
  const items = unplaced.map(({ comment: c, reason }) => {
    // The comment's own finding marker means nothing in the body (and would show once neutralised).
    const body = withoutOwnMarker(c.body)
      .trim()
      .replace(/\r\n/g, '\n')
      .replace(/\n(?=.)/g, '\n  ');
    return `- ${codeSpan(`${c.path}:${rangeText(c)}`)} (${c.side}; ${reason}): ${body}`;
  });
  // Paths and bodies are untrusted text: none of it may plant a marker (CONTRACT §13).
  return neutraliseMarkers(`### ${UNPLACED_HEADING}\n\n${items.join('\n\n')}`);
}

/** Hidden lines (HTML comments) that end a review body, with the blank line before them. */
const TRAILING_HIDDEN = /\n\n(<!--[^\n]*-->(?:\n<!--[^\n]*-->)*)$/;

/**
 * The review's body: `body`, then the unplaced comments, with the body's trailing hidden lines kept
 * last (review memory reads its marker only there, CONTRACT §13).
 */
function reviewBodyText(body: string, unplaced: Unplaced[]): string {
  const trimmed = body.trim();
  const hidden = TRAILING_HIDDEN.exec(trimmed);
  const main = hidden ? trimmed.slice(0, hidden.index) : trimmed;
  const sections = [main, unplaced.length > 0 ? unplacedSection(unplaced) : '', hidden?.[1] ?? ''];
  return sections.filter((s) => s !== '').join('\n\n');
}

/**
 * Gitea's position of `comment` in a file whose diff lines are `lines`, or why it has none: the
 * line (and, for a range, its first line, in the same hunk) must be on the comment's side.
 */
export function giteaPosition(
  lines: FileLines | undefined,
  comment: InlineComment,
): CreatePullReviewComment | { error: string } {
  if (!lines) return { error: 'file not in the diff' };
  const end = lines.find(comment.side, comment.line);
  if (!end) return { error: `line ${comment.line} is not on the ${comment.side} side of the diff` };
  let body = comment.body;
  if (comment.startLine !== undefined && comment.startLine < comment.line) {
    const start = lines.find(comment.side, comment.startLine);
    if (!start) return { error: `line ${comment.startLine} is not on the ${comment.side} side of the diff` };
    if (start.hunk !== end.hunk) return { error: 'the range spans more than one hunk' };
    body = `_Lines ${comment.startLine}–${comment.line}:_\n\n${body}`;
  }
  return {
    path: comment.path,
    body,
    new_position: comment.side === 'RIGHT' ? comment.line : 0,
    old_position: comment.side === 'LEFT' ? comment.line : 0,
  };
}

/**
 * Posts `review` on pull request `index` of `repo` as one Gitea review. Comments are checked
 * against the pull request's current diff (Gitea anchors at the current head, `commit_id` names the
 * reviewed one).
 * @returns the review (`html_url`).
 * @throws AuthError / PlatformError from Gitea.
 */
export async function submitGiteaReview(
  client: GiteaClient,
  call: GiteaCall,
  repo: string,
  index: number,
  review: ReviewSubmission,
): Promise<Posted> {
  const ref = `${repo}#${index}`;
  const patches =
    review.comments.length > 0
      ? splitUnifiedDiff(
          await call(`download the diff of ${ref}`, () => client.repoDownloadPullDiff(repo, index)),
        )
      : new Map<string, string>();
  const files = new Map<string, FileLines>();
  for (const [path, patch] of patches) files.set(path, FileLines.fromPatch(patch));
  const comments: CreatePullReviewComment[] = [];
  const unplaced: Unplaced[] = [];
  for (const comment of review.comments) {
    const position = giteaPosition(files.get(comment.path), comment);
    if ('error' in position) unplaced.push({ comment, reason: position.error });
    else comments.push(position);
  }
  let body = reviewBodyText(review.body, unplaced);
  // Gitea refuses a COMMENT review with neither body nor comments (422).
  if (body === '' && comments.length === 0) body = '_No comments._';
  const posted = await call(`submit a review on ${ref}`, () =>
    client.repoCreatePullReview(repo, index, {
      body,
      event: 'COMMENT',
      ...(review.commitSha ? { commit_id: review.commitSha } : {}),
      comments,
    }),
  );
  return { id: String(posted.id), url: posted.html_url };
}
