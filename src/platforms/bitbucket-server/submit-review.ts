/**
 * A review on Bitbucket Data Center, which has no review object a bot can submit in one call: each
 * inline finding is one comment (`POST …/pull-requests/{id}/comments` with `anchor`), then the
 * summary is one general comment carrying the review marker (so memory records the review only
 * once it has landed).
 *
 * Anchors (Atlassian REST "Add pull request comment", `RestComment.anchor`): `path`, `line`,
 * `diffType` `EFFECTIVE` (the pull request's diff), `fileType` `TO` with `lineType` `ADDED` or
 * `CONTEXT` for a line of the new file, `fileType` `FROM` with `REMOVED` (or `CONTEXT`) for one of
 * the old file; the line type is read from the pull request's diff; an anchor in a moved file
 * names its path before the move as `srcPath` (required there). A multi-line finding is anchored
 * on its last line (`multilineMarker` is read-only in the API). A re-run posts nothing twice: an
 * inline comment the bot already posted at the same place with the same body is skipped. If one
 * inline comment is rejected, the others and the summary still land; the rejected ones are listed
 * in the summary.
 */
import { codeSpan, neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import { parsePatch } from '../../diff/diff.js';
import { numberLines } from '../../diff/positions.js';
import { toWire } from '../wire-markers.js';
import type { InlineComment, Posted, PullRequestFile, ReviewSubmission } from '../types.js';
import { repoParams, type BitbucketServerClient } from './client.js';
import { listServerComments } from './comments.js';
import type { PlatformCall as BitbucketServerCall } from '../http/index.js';
import { Comment } from './schemas.js';

/** Heading of the summary's list of findings Bitbucket refused to place inline. */
export const UNPLACED_HEADING = 'Findings that could not be placed inline';

/** A Data Center comment anchor. */
export interface ServerAnchor {
  path: string;
  /**
   * The file's path before the pull request moved it (`PullRequestFile.previousPath`, from the
   * `srcPath` of a `MOVE` change): Data Center requires it on an anchor in a moved file and answers
   * 400 without it.
   */
  srcPath?: string;
  line: number;
  lineType: 'ADDED' | 'REMOVED' | 'CONTEXT';
  fileType: 'FROM' | 'TO';
  diffType: 'EFFECTIVE';
}

/**
 * The anchor of `comment` in `files` (the pull request's diff), or undefined when its line is not
 * a line of the diff on its side.
 */
export function anchorOf(
  comment: InlineComment,
  files: readonly PullRequestFile[],
): ServerAnchor | undefined {
  const file = files.find((f) => f.path === comment.path);
  if (!file?.patch) return undefined;
  const right = comment.side === 'RIGHT';
  const hit = numberLines(parsePatch(file.patch)).find((l) =>
    right ? l.kind !== 'del' && l.newPos === comment.line : l.kind !== 'add' && l.oldPos === comment.line,
  );
  if (!hit) return undefined;
  const lineType = hit.kind === 'add' ? 'ADDED' : hit.kind === 'del' ? 'REMOVED' : 'CONTEXT';
  return {
    path: comment.path,
    ...(file.previousPath ? { srcPath: file.previousPath } : {}),
    line: comment.line,
    lineType,
    fileType: right ? 'TO' : 'FROM',
    diffType: 'EFFECTIVE',
  };
}

/** The summary `body` with `unplaced` findings listed before its trailing marker. */
function withUnplaced(body: string, unplaced: InlineComment[]): string {
  if (unplaced.length === 0) return body;
  const text = withoutOwnMarker(body);
  const marker = body.slice(text.length);
  const items = unplaced.map(
    (c) =>
      `- ${codeSpan(c.path)} line ${c.line} (${c.side}):\n\n${withoutOwnMarker(c.body).replace(/^/gm, '  ')}`,
  );
  return `${text}\n\n${neutraliseMarkers(`### ${UNPLACED_HEADING}\n\n${items.join('\n\n')}`)}${marker}`;
}

/** What `submitServerReview` needs from the platform. */
export interface SubmitContext {
  client: BitbucketServerClient;
  call: BitbucketServerCall;
  /** The bot's username ('' when unknown: then any identical inline comment counts as posted). */
  botLogin: () => Promise<string>;
  /** The pull request's changed files with their hunks. */
  files: () => Promise<PullRequestFile[]>;
  /** Web link of comment `commentId`. */
  commentUrl: (commentId: string) => string;
}

/**
 * Posts `review` on pull request `id` of `repo`.
 * @throws AuthError / PlatformError when the summary cannot be posted (inline failures are listed).
 */
export async function submitServerReview(
  ctx: SubmitContext,
  repo: string,
  id: number,
  review: ReviewSubmission,
): Promise<Posted> {
  const { client, call } = ctx;
  const bot = await ctx.botLogin();
  const existing = (await listServerComments(client, call, repo, id)).filter(
    (c) => (bot === '' || c.author === bot) && c.inline,
  );
  const files = review.comments.length > 0 ? await ctx.files() : [];
  const path = { ...repoParams(repo), pullRequestId: String(id) };
  const post = async (body: Record<string, unknown>) =>
    Comment.parse(
      client.ok(
        await client.api.POST(
          '/api/latest/projects/{projectKey}/repos/{repositorySlug}/pull-requests/{pullRequestId}/comments',
          { params: { path }, body: body as never },
        ),
      ),
    );
  const unplaced: InlineComment[] = [];
  for (const comment of review.comments) {
    const already = existing.some(
      (c) =>
        c.inline?.path === comment.path &&
        c.inline.line === comment.line &&
        c.inline.side === comment.side &&
        c.body.trim() === comment.body.trim(),
    );
    if (already) continue;
    const anchor = anchorOf(comment, files);
    try {
      if (!anchor) throw new Error('not a line of the diff');
      await call(`post an inline comment on ${comment.path}:${comment.line} of ${repo}#${id}`, () =>
        post({ text: toWire(comment.body), anchor }),
      );
    } catch {
      unplaced.push(comment);
    }
  }
  const summary = await call(`post the review summary on ${repo}#${id}`, () =>
    post({ text: toWire(withUnplaced(review.body, unplaced)) }),
  );
  const commentId = String(summary.id);
  return { id: commentId, url: ctx.commentUrl(commentId) };
}
