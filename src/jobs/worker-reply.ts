/**
 * Pure pieces of the WORKER job: the bot's commit identity, the commit message, and the reply
 * posted in the mention's thread.
 */
import type { PullRequestInfo, ReviewComment } from '../platforms/types.js';
import { codeSpan } from '../diff/markdown.js';
import { neutraliseMentions } from '../diff/mentions.js';
import { neutraliseMarkers } from '../review/memory/markers.js';

/** Name used when `worker.bot_username` is not configured. */
export const DEFAULT_WORKER_NAME = 'reviewbot';

/** Longest commit subject, characters (git's customary 72-column limit). */
const MAX_SUBJECT = 72;

/**
 * The commit author of the WORKER: `<name> <<name>@users.noreply.reviewbot>`, where name is the
 * worker's bot username (default `reviewbot`); a GitHub App's `[bot]` suffix is left out of the
 * e-mail address.
 */
export function workerAuthor(botUsername: string | undefined): { name: string; email: string } {
  const name = botUsername?.trim() || DEFAULT_WORKER_NAME;
  const local = name.replace(/\[bot\]$/i, '').replace(/[^A-Za-z0-9._-]/g, '-') || DEFAULT_WORKER_NAME;
  return { name, email: `${local}@users.noreply.reviewbot` };
}

/**
 * The commit message: the first non-empty line of the request (at most 72 characters, cut with
 * `…`), or "Apply changes requested on <repo>#<N>" when the request is empty; then a body naming
 * who asked (their readable name first when the platform's login is an id), where.
 */
export function workerCommitMessage(request: string, comment: ReviewComment): string {
  const first = request
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '');
  let subject = first ?? `Apply changes requested on ${comment.repoFullName}#${comment.prNumber}`;
  if (subject.length > MAX_SUBJECT) subject = `${subject.slice(0, MAX_SUBJECT - 1).trimEnd()}…`;
  const who = comment.authorName
    ? `${comment.authorName} (@${comment.authorUsername})`
    : `@${comment.authorUsername}`;
  return `${subject}\n\nRequested by ${who} on ${comment.repoFullName}#${comment.prNumber}.`;
}

/** How a WORKER job ended for the repository. */
export type WorkerResult =
  { kind: 'pushed'; sha: string } | { kind: 'fork'; files: string[] } | { kind: 'no-changes' };

/** Most changed files listed in a fork reply. */
const MAX_LISTED_FILES = 20;

/**
 * The reply of a WORKER job: the agent's summary, then
 * - pushed: "Pushed commit `<sha>` to `<branch>`.";
 * - fork: that the changes could not be pushed because fork branches are not writable, and which
 *   files they touched;
 * - no changes: nothing more.
 *
 * Marker-shaped text (from the summary, branch or file names) is neutralised (§13, issue 27), and
 * so are mentions outside code (`neutraliseMentions`: the agent's `@team` pings no one; the reply
 * holds no intentional mention); branch and file names are code spans nothing can escape.
 */
export function workerReplyBody(summary: string, result: WorkerResult, pr: PullRequestInfo): string {
  const parts = [summary.trim() || '_The worker finished without a summary._'];
  if (result.kind === 'pushed') {
    parts.push(`Pushed commit ${result.sha} to ${codeSpan(pr.headBranch)}.`);
  } else if (result.kind === 'fork') {
    const listed = result.files.slice(0, MAX_LISTED_FILES).map((file) => `- ${codeSpan(file)}`);
    if (result.files.length > MAX_LISTED_FILES) {
      listed.push(`- … and ${result.files.length - MAX_LISTED_FILES} more`);
    }
    parts.push(
      [
        `These changes could not be pushed: the branch ${codeSpan(pr.headBranch)} lives in the fork ${pr.headRepoFullName}, and fork branches are not writable by the bot. Changed files:`,
        ...listed,
      ].join('\n'),
    );
  }
  return neutraliseMentions(neutraliseMarkers(parts.join('\n\n')));
}
