/**
 * A review on Azure DevOps, which has no review object: each inline finding is one thread anchored
 * where the web UI shows it (`POST …/pullRequests/{id}/threads`; Microsoft Learn, "Pull Request
 * Threads - Create"): `threadContext` {`filePath` with a leading `/`, `rightFileStart`/`rightFileEnd`
 * `{line, offset}` on the new side, `leftFileStart`/`leftFileEnd` on the old side} plus
 * `pullRequestThreadContext` {`iterationContext` from the first to the latest iteration, the file's
 * `changeTrackingId` from the latest iteration's changes}. Then the summary is one thread without
 * context carrying the review marker (so memory records the review only once it has landed).
 *
 * A re-run posts nothing twice: a thread the bot already started at the same place with the same
 * body is skipped. If one thread is refused, the others and the summary still land; the refused
 * ones are listed in the summary.
 */
import { codeSpan, neutraliseMarkers, withoutOwnMarker } from '../../diff/markdown.js';
import { AuthError } from '../../errors.js';
import type { InlineComment, Posted, ReviewSubmission } from '../types.js';
import type { AzureClient } from './client.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { iterationChanges, latestIteration } from './iterations.js';
import { toWire } from '../wire-markers.js';
import { COMMENT_TYPE, THREAD_STATUS, listAzureThreads, splitRepo } from './threads.js';

/** Heading of the summary's list of findings Azure DevOps refused to place inline. */
export const UNPLACED_HEADING = 'Findings that could not be placed inline';

/** The `threadContext` of `comment` (lines 1-based; offset 1 = the line's start). */
export function threadContextOf(comment: InlineComment): Record<string, unknown> {
  const start =
    comment.startLine !== undefined && comment.startLine < comment.line ? comment.startLine : comment.line;
  const [from, to] =
    comment.side === 'RIGHT' ? ['rightFileStart', 'rightFileEnd'] : ['leftFileStart', 'leftFileEnd'];
  return {
    filePath: `/${comment.path}`,
    [from]: { line: start, offset: 1 },
    [to]: { line: comment.line, offset: 1 },
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

/** The web link of thread `threadId` on pull request page `prUrl`. */
export function threadUrl(prUrl: string, threadId: number): string {
  return `${prUrl}?discussionId=${threadId}`;
}

/**
 * Posts `review` on pull request `id` of `repo` as the bot `botName()` (its unique name).
 * @throws AuthError / PlatformError when the summary cannot be posted (inline failures are listed).
 */
export async function submitAzureReview(
  client: AzureClient,
  call: AzureCall,
  botName: () => Promise<string>,
  prUrl: (repo: string, id: number) => Promise<string>,
  repo: string,
  id: number,
  review: ReviewSubmission,
): Promise<Posted> {
  const { project, repo: name } = splitRepo(repo);
  const [bot, threads, iteration] = await Promise.all([
    botName(),
    listAzureThreads(client, call, repo, id),
    latestIteration(client, call, repo, id),
  ]);
  const tracking = new Map<string, number>();
  if (review.comments.length > 0) {
    for (const change of await iterationChanges(client, call, repo, id, iteration.id)) {
      if (change.changeTrackingId !== undefined) tracking.set(change.path, change.changeTrackingId);
    }
  }
  const own = threads.filter(
    (t) => t.path && (bot === '' || t.comments[0]?.author.toLowerCase() === bot.toLowerCase()),
  );
  const unplaced: InlineComment[] = [];
  for (const comment of review.comments) {
    const already = own.some(
      (t) =>
        t.path === comment.path &&
        t.line === comment.line &&
        t.side === comment.side &&
        t.comments[0]?.body.trim() === comment.body.trim(),
    );
    if (already) continue;
    const changeTrackingId = tracking.get(comment.path);
    try {
      await call(`start a thread on ${comment.path}:${comment.line} of ${repo}#${id}`, () =>
        client.send((git) =>
          git.createThread(
            {
              comments: [
                { parentCommentId: 0, content: toWire(comment.body), commentType: COMMENT_TYPE.text },
              ],
              status: THREAD_STATUS.active,
              threadContext: threadContextOf(comment),
              pullRequestThreadContext: {
                ...(changeTrackingId !== undefined ? { changeTrackingId } : {}),
                // Equal iterations: the left side is the merge base (CommentIterationContext, Azure DevOps REST 7.1),
                // as the hunks are (merge base → latest iteration).
                iterationContext: {
                  firstComparingIteration: iteration.id,
                  secondComparingIteration: iteration.id,
                },
              },
            },
            name,
            id,
            project,
          ),
        ),
      );
    } catch (error) {
      // A refused thread goes to the summary and the others are still tried; a bad token fails the
      // submission at once (nothing else could be posted with it).
      if (error instanceof AuthError) throw error;
      unplaced.push(comment);
    }
  }
  const summary = await call(`post the review summary on ${repo}#${id}`, () =>
    client.send((git) =>
      git.createThread(
        {
          comments: [
            {
              parentCommentId: 0,
              content: toWire(withUnplaced(review.body, unplaced)),
              commentType: COMMENT_TYPE.text,
            },
          ],
          status: THREAD_STATUS.active,
        },
        name,
        id,
        project,
      ),
    ),
  );
  const threadId = summary.id ?? 0;
  return { id: String(threadId), url: threadUrl(await prUrl(repo, id), threadId) };
}
