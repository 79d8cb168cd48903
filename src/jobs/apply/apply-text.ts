/**
 * Texts of the `apply` command (CONTRACT §24): the commit message, the replies in the finding's
 * thread, and the WORKER's task for a finding without a suggestion. Untrusted text (paths, the
 * finding's body, the requester's extra text) goes into replies through `codeSpan` and
 * `neutraliseMentions`/`neutraliseMarkers`, into the prompt inside a random fence.
 */
import { codeSpan } from '../../diff/inline-code.js';
import { neutraliseMentions } from '../../diff/mentions.js';
import type { PullRequestInfo, ReviewComment } from '../../platforms/types.js';
import { neutraliseMarkers } from '../../review/memory/markers.js';
import type { EarlierFinding } from '../../review/memory/state.js';
import { createFence } from '../../review/prompt.js';

/** Longest commit subject, characters (git's customary 72-column limit). */
const MAX_SUBJECT = 72;

/** The finding's text without its hidden marker and suggestion block. */
export function findingText(body: string): string {
  const text = body.replace(/\r\n/g, '\n').replace(/<!--[\s\S]*?-->/g, '');
  const cut = text.search(/(^|\n)(`{3,}suggestion|Suggested replacement for )/);
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/** The first non-empty line of the finding's text, cut to 72 characters, or ''. */
export function findingGist(body: string): string {
  const line =
    findingText(body)
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return line.length > MAX_SUBJECT ? `${line.slice(0, MAX_SUBJECT - 1).trimEnd()}…` : line;
}

/** `@login`, or `Name (@login)` when the platform's login is an id (`authorName`). */
function requester(comment: ReviewComment): string {
  return comment.authorName
    ? `${comment.authorName} (@${comment.authorUsername})`
    : `@${comment.authorUsername}`;
}

/**
 * The commit message of an applied finding: its first line (or "Apply a review finding on
 * `<path>`"), a blank line, `Requested by @<user>`. For several findings: "Apply <N> review
 * suggestions", the list, then `Requested by`.
 */
export function applyCommitMessage(findings: EarlierFinding[], comment: ReviewComment): string {
  const by = `Requested by ${requester(comment)}`;
  if (findings.length === 1) {
    const only = findings[0]!;
    const subject = findingGist(only.thread.body) || `Apply a review finding on ${only.thread.path}`;
    return `${subject}\n\n${by}`;
  }
  const list = findings.map((f) => `- ${f.thread.path}: ${findingGist(f.thread.body)}`);
  return `Apply ${findings.length} review suggestions\n\n${list.join('\n')}\n\n${by}`;
}

/** Posted text: markers and mentions in untrusted parts neutralised. */
export function safeReply(text: string): string {
  return neutraliseMentions(neutraliseMarkers(text));
}

/** `path:line` of a finding as a code span. */
export function findingPlace(finding: EarlierFinding): string {
  const { path, line } = finding.thread;
  return codeSpan(line ? `${path}:${line}` : path);
}

/** Why a finding was not applied. */
export type SkipReason = 'stale' | 'overlap' | 'left' | 'unreadable';

const SKIP_TEXT: Record<SkipReason, string> = {
  stale: 'its lines changed since it was posted, so it no longer applies to the current code',
  overlap: 'its lines overlap another finding applied in this commit',
  left: 'it is on the old side of the diff (code the pull request removed): there is nothing on the head to change',
  unreadable: 'its file is not a readable text file in the checkout',
};

/** The reply for a single finding that was not applied. */
export function notAppliedReply(reason: SkipReason): string {
  return `Nothing was committed: ${SKIP_TEXT[reason]}.`;
}

/** What the reply says of a thread the platform did not resolve: `reason` as a sentence. */
export function unresolvedNote(reason: string): string {
  return `This thread could not be resolved: ${reason}.`;
}

/**
 * The reply when the finding's suggestion was applied and pushed as `sha`: it says the thread was
 * resolved, or (`unresolved`, the platform's refusal) why it could not be.
 */
export function appliedReply(sha: string, pr: PullRequestInfo, unresolved?: string): string {
  const applied = `Applied this suggestion in commit ${sha} on ${codeSpan(pr.headBranch)}`;
  return unresolved === undefined
    ? `${applied}, and resolved this thread.`
    : `${applied}. ${unresolvedNote(unresolved)}`;
}

/**
 * The reply of `apply all`: what was applied (in `sha`, if any), what was skipped and why, and the
 * applied findings whose threads the platform did not resolve, with its reason.
 */
export function applyAllReply(
  applied: EarlierFinding[],
  skipped: Array<{ finding: EarlierFinding; reason: SkipReason }>,
  sha: string | undefined,
  pr: PullRequestInfo,
  unresolved: Array<{ finding: EarlierFinding; reason: string }> = [],
): string {
  const parts: string[] = [];
  if (applied.length === 0 && skipped.length === 0) {
    return 'There is no open finding with a suggestion to apply.';
  }
  if (sha) {
    const items = applied.map((f) => `- ${findingPlace(f)}: ${findingGist(f.thread.body)}`);
    const what = applied.length === 1 ? '1 suggestion' : `${applied.length} suggestions`;
    parts.push(`Applied ${what} in commit ${sha} on ${codeSpan(pr.headBranch)}:\n${items.join('\n')}`);
  } else {
    parts.push('Nothing was committed.');
  }
  if (skipped.length > 0) {
    const items = skipped.map(({ finding, reason }) => `- ${findingPlace(finding)}: ${SKIP_TEXT[reason]}`);
    parts.push(`Skipped:\n${items.join('\n')}`);
  }
  if (unresolved.length > 0) {
    const items = unresolved.map(({ finding, reason }) => `- ${findingPlace(finding)}: ${reason}`);
    parts.push(`These threads could not be resolved:\n${items.join('\n')}`);
  }
  return parts.join('\n\n');
}

/** The reply when the head branch is in a fork (nothing pushed). */
export function forkReply(pr: PullRequestInfo): string {
  return `Nothing was committed: the branch ${codeSpan(pr.headBranch)} lives in the fork ${codeSpan(pr.headRepoFullName)}, and fork branches are not writable by the bot.`;
}

/**
 * The WORKER's user prompt for a finding without a suggestion: the pull request, the finding
 * (path, lines, side, body) as the task, and the requester's extra text as further instructions,
 * each untrusted part fenced.
 */
export function buildApplyPrompt(input: {
  pr: PullRequestInfo;
  finding: EarlierFinding;
  range?: { start: number; end: number };
  comment: ReviewComment;
  extra: string;
}): string {
  const fence = createFence();
  const { pr, finding, comment } = input;
  const lines = input.range
    ? input.range.start === input.range.end
      ? `line ${input.range.start}`
      : `lines ${input.range.start}-${input.range.end}`
    : finding.thread.line
      ? `line ${finding.thread.line}`
      : 'lines unknown';
  const parts = [
    `You are working on pull request #${pr.number} of ${pr.repoFullName}: ${pr.headBranch} → ${pr.baseBranch} (head ${pr.headSha.slice(0, 12)}).`,
    '',
    'Title and description:',
    fence.wrap('pull-request', `${pr.title}\n\n${pr.body}`.trim()),
    '',
    `Your task: fix the review finding below in the file ${JSON.stringify(finding.thread.path)}, ${lines} of the`,
    `head (side ${finding.marker.side}), with the smallest change that addresses it. Severity: ${severityOf(finding)}.`,
    'The finding:',
    fence.wrap('finding', findingText(finding.thread.body)),
  ];
  const extra = input.extra.trim();
  if (extra) {
    parts.push('', `Further instructions from @${comment.authorUsername}:`, fence.wrap('request', extra));
  }
  return parts.join('\n');
}

/** The finding's severity as its marker records it (P2 for markers written before severity). */
function severityOf(finding: EarlierFinding): string {
  return finding.marker.severity;
}
