/**
 * A review on GitLab (CONTRACT §2 "one diff discussion per finding plus one note"): each inline
 * comment becomes a diff discussion positioned on the diff version the review was made on, then the
 * review body is posted as one merge request note. A comment GitLab refuses to place (HTTP 400, e.g.
 * the line left the diff after a push) or that does not map onto the diff is not lost: it is listed
 * in the note under "Comments that could not be placed on the diff".
 */
import { PlatformError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { codeSpan, neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import type { InlineComment, Posted, ReviewSubmission } from '../types.js';
import type { GitLabClient } from './client.js';
import { hasHunks } from './diffs.js';
import { FileLines } from '../../diff/positions.js';
import { buildPosition, type DiffFileLines } from './positions.js';
import {
  Discussion,
  DiffVersion,
  DiffVersionDetail,
  MergeRequest,
  MergeRequestDiff,
  Note,
  type DiffRefs,
} from './schemas.js';
import { neutraliseQuickActions } from './quick-actions.js';

/** Heading of the note section listing comments that could not be posted inline. */
export const UNPLACED_HEADING = 'Comments that could not be placed on the diff';

/** What `submitGitLabReview` needs from the platform. */
export interface SubmitContext {
  client: GitLabClient;
  logger: Logger;
  /** Runs a GitLab call, mapping failures with `platformCall`. */
  call<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Web URL of a note: `<mr web_url>#note_<id>`. */
  noteUrl(mrWebUrl: string, noteId: number): string;
}

/** The diff a review is positioned on. */
interface ReviewedDiff {
  refs: DiffRefs;
  entries: MergeRequestDiff[];
}

/**
 * The diff the review's line numbers refer to: the merge request's current diff when its head is
 * `commitSha`, else the diff version (`GET .../versions`) whose head is `commitSha` (the branch moved
 * during the review), else the current diff (comments that no longer fit are listed in the note).
 */
async function diffVersion(
  ctx: SubmitContext,
  project: string,
  iid: number,
  mr: MergeRequest,
  commitSha: string,
): Promise<ReviewedDiff> {
  const refs = mr.diff_refs;
  if (!refs) {
    throw new PlatformError(`GitLab has not prepared the diff of ${project}!${iid} yet; try again shortly`);
  }
  const current = async (): Promise<ReviewedDiff> => ({
    refs,
    entries: MergeRequestDiff.array().parse(
      await ctx.call(`list the diffs of ${project}!${iid}`, () =>
        ctx.client.mergeRequests.allDiffs(project, iid, { perPage: 100 }),
      ),
    ),
  });
  if (!commitSha || refs.head_sha === commitSha) return current();
  const versions = DiffVersion.array().parse(
    await ctx.call(`list the diff versions of ${project}!${iid}`, () =>
      ctx.client.mergeRequests.allDiffVersions(project, iid),
    ),
  );
  const match = versions.find((v) => v.head_commit_sha === commitSha);
  if (!match) {
    ctx.logger.warn(
      { commitSha, head: refs.head_sha },
      'no diff version for the reviewed commit; using the current diff',
    );
    return current();
  }
  const version = DiffVersionDetail.parse(
    await ctx.call(`fetch diff version ${match.id} of ${project}!${iid}`, () =>
      ctx.client.mergeRequests.showDiffVersion(project, iid, match.id),
    ),
  );
  return {
    refs: {
      base_sha: match.base_commit_sha,
      start_sha: match.start_commit_sha,
      head_sha: match.head_commit_sha,
    },
    entries: version.diffs,
  };
}

function filesOf(entries: MergeRequestDiff[]): Map<string, DiffFileLines> {
  const files = new Map<string, DiffFileLines>();
  for (const entry of entries) {
    const diff = entry.diff ?? '';
    const lines = hasHunks(diff) ? FileLines.fromPatch(diff) : new FileLines([]);
    files.set(entry.new_path, { oldPath: entry.old_path, newPath: entry.new_path, lines });
  }
  return files;
}

/** A comment GitLab could not place, and why. */
export interface Unplaced {
  comment: InlineComment;
  reason: string;
}

function unplacedSection(unplaced: Unplaced[]): string {
  const items = unplaced.map(({ comment: c, reason }) => {
    const range =
      c.startLine !== undefined && c.startLine < c.line ? `${c.startLine}-${c.line}` : String(c.line);
    // The comment's own finding marker means nothing in a note (and would show once neutralised).
    const body = withoutOwnMarker(c.body)
      .trim()
      .replace(/\r\n/g, '\n')
      .replace(/\n(?=.)/g, '\n  ');
    return `- ${codeSpan(`${c.path}:${range}`)} (${c.side}; ${reason}): ${body}`;
  });
  return neutraliseMarkers(`### ${UNPLACED_HEADING}\n\n${items.join('\n\n')}`);
}

/** Hidden lines (HTML comments) that end a review body, with the blank line before them. */
const TRAILING_HIDDEN = /\n\n(<!--[^\n]*-->(?:\n<!--[^\n]*-->)*)$/;

/**
 * The note's text: the body, then the unplaced comments, with the body's trailing hidden lines kept
 * last (review memory reads its marker only there, CONTRACT §13).
 */
export function reviewNoteText(body: string, unplaced: Unplaced[]): string {
  const trimmed = body.trim();
  const hidden = TRAILING_HIDDEN.exec(trimmed);
  const main = hidden ? trimmed.slice(0, hidden.index) : trimmed;
  const sections = [main, unplaced.length > 0 ? unplacedSection(unplaced) : '', hidden?.[1] ?? ''];
  return sections.filter((s) => s !== '').join('\n\n');
}

/**
 * Posts `review` on merge request `iid` of `project` (full path): one diff discussion per inline
 * comment, then `review.body` (plus any comment that could not be placed) as a note.
 * @returns the note, or — when there is no body at all — the last discussion's first note.
 * @throws AuthError / PlatformError when GitLab fails other than refusing a position (400).
 */
export async function submitGitLabReview(
  ctx: SubmitContext,
  project: string,
  iid: number,
  review: ReviewSubmission,
): Promise<Posted> {
  const mr = MergeRequest.parse(
    await ctx.call(`fetch merge request ${project}!${iid}`, () =>
      ctx.client.mergeRequests.show(project, iid),
    ),
  );
  const { refs, entries } = await diffVersion(ctx, project, iid, mr, review.commitSha);
  const files = filesOf(entries);
  const endpoint = `projects/${encodeURIComponent(project)}/merge_requests/${iid}`;
  const unplaced: Unplaced[] = [];
  let last: Posted | undefined;
  for (const comment of review.comments) {
    const file = files.get(comment.path);
    const position = file ? buildPosition(refs, file, comment) : { error: 'file not in the diff' };
    if ('error' in position) {
      unplaced.push({ comment, reason: position.error });
      continue;
    }
    try {
      const { body } = await ctx.call(`open a diff discussion on ${project}!${iid}`, () =>
        ctx.client.api.post(`${endpoint}/discussions`, {
          body: { body: neutraliseQuickActions(comment.body), position: { ...position } },
          signal: AbortSignal.timeout(ctx.client.timeoutMs),
        }),
      );
      const note = Discussion.parse(body).notes[0];
      if (note) last = { id: String(note.id), url: ctx.noteUrl(mr.web_url, note.id) };
    } catch (error) {
      if (!(error instanceof PlatformError) || error.status !== 400) throw error;
      ctx.logger.warn(
        { path: comment.path, line: comment.line, err: error.message },
        'GitLab refused a diff position',
      );
      unplaced.push({ comment, reason: 'GitLab refused the position' });
    }
  }
  const text = reviewNoteText(review.body, unplaced);
  if (text === '' && last) return last;
  const note = Note.parse(
    await ctx.call(`post a note on ${project}!${iid}`, () =>
      ctx.client.notes.create(project, iid, text === '' ? '_No comments._' : neutraliseQuickActions(text)),
    ),
  );
  return { id: String(note.id), url: ctx.noteUrl(mr.web_url, note.id) };
}
