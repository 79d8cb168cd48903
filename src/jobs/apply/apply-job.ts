/**
 * The `apply` command of the WORKER (CONTRACT §24): applies a bot finding to the pull request's
 * head from its thread. With a suggestion the product replaces the finding's lines itself (no
 * agent, no tokens); without one a WORKER agent run gets the finding as its task. Either way the
 * product commits, pushes to the head branch, replies in the thread with the SHA and resolves it.
 * `apply all` applies every open finding with a suggestion in one commit.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Platform, PullRequestInfo, ReviewComment } from '../../platforms/types.js';
import { earlierFindings, type EarlierFinding } from '../../review/memory/state.js';
import { commitAndPush } from '../../workspace/commit-and-push.js';
import { readRegularFile } from '../../workspace/safe-file.js';
import { prepareWorkspace, withWorkspaceLock, workspacePath } from '../../workspace/workspace.js';
import { configuredBotUsernames, platformFor, type JobContext } from '../job-context.js';
import { progressTarget } from '../progress.js';
import { replyTargetOf } from '../reply-target.js';
import type { JobPayload } from '../types.js';
import { isSameRepository, processWorkerComment, type WorkerJobOutcome } from '../worker-job.js';
import { workerAuthor, type WorkerResult } from '../worker-reply.js';
import {
  applyAllReply,
  applyCommitMessage,
  appliedReply,
  buildApplyPrompt,
  forkReply,
  notAppliedReply,
  safeReply,
  unresolvedNote,
  type SkipReason,
} from './apply-text.js';
import type { ApplyCommand } from './command.js';
import { locateFinding, overlaps, replaceRange, splitLines, type LineRange } from './replace-lines.js';
import { probeSentence, probesParagraph, rerunProbes } from './probe-after-apply.js';
import { settleApplied } from './resolve-applied.js';
import { parseSuggestion, type ParsedSuggestion } from './suggestion-block.js';

/** Largest file the product edits itself, bytes. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** The bot's findings on the pull request (threads it started with a finding marker). */
async function botFindings(
  platform: Platform,
  comment: ReviewComment,
  ctx: JobContext,
): Promise<EarlierFinding[]> {
  if (!platform.listReviewThreads) return [];
  const threads = await platform.listReviewThreads(comment.repoFullName, comment.prNumber);
  const own = [...(await platform.getBotUsernames()), ...configuredBotUsernames(ctx.config)];
  return earlierFindings(threads, new Set(own.map((n) => n.toLowerCase())));
}

/**
 * The finding whose thread `comment` was written in (its first comment or discussion), if any.
 * Where the event named only the comment or its immediate parent (Bitbucket: a reply to a reply;
 * Data Center: `discussionId` is the comment itself), the platform locates the thread's root
 * (`Platform.locateComment`). Azure DevOps delivers every comment as an `issue_comment` whose
 * `discussionId` is its thread.
 * @throws AuthError / PlatformError from the lookup.
 */
async function findingOfThread(
  platform: Platform,
  findings: EarlierFinding[],
  comment: ReviewComment,
): Promise<EarlierFinding | undefined> {
  // Azure DevOps names the thread of any comment (`discussionId`) but never its file: a general
  // comment there, or elsewhere, names no finding's thread, so matching the id is enough.
  if (comment.commentType !== 'review_comment' && !comment.discussionId) return undefined;
  const rootIs = (id: string) => findings.find((f) => f.thread.commentId === id || f.thread.id === id);
  const direct = rootIs(comment.discussionId || comment.commentId);
  if (direct || !platform.locateComment || !comment.commentId) return direct;
  const located = await platform.locateComment(comment.repoFullName, comment.prNumber, comment.commentId);
  return located ? rootIs(located.discussionId) : undefined;
}

/** How many lines the finding's thread covers, when the platform says where it starts (GitHub). */
function threadLineCount(finding: EarlierFinding): number | undefined {
  const { line, startLine } = finding.thread;
  return line !== undefined && startLine !== undefined && startLine < line ? line - startLine + 1 : undefined;
}

/** A finding with the suggestion to apply. */
interface Candidate {
  finding: EarlierFinding;
  suggestion: ParsedSuggestion;
}

/** The text of `relative` in checkout `dir` when it is a regular UTF-8 file inside it, else undefined. */
async function readInside(
  dir: string,
  relative: string,
): Promise<{ file: string; text: string } | undefined> {
  const root = await realpath(dir);
  const file = path.resolve(root, relative);
  if (!file.startsWith(`${root}${path.sep}`)) return undefined;
  // A directory on the way may be a link the pull request committed: its real place must be inside.
  const parent = await realpath(path.dirname(file)).catch(() => undefined);
  if (parent === undefined || (parent !== root && !parent.startsWith(`${root}${path.sep}`))) return undefined;
  const bytes = await readRegularFile(file, MAX_FILE_BYTES);
  if (!bytes) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { file, text } : undefined;
}

/** Writes `text` over the regular file `file` (its mode kept; a link there is never followed). */
async function overwrite(file: string, text: string): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}

/** What applying a set of suggestions in a checkout did. */
interface EditOutcome {
  applied: EarlierFinding[];
  skipped: Array<{ finding: EarlierFinding; reason: SkipReason }>;
}

/**
 * Replaces each candidate's lines in checkout `dir`: a LEFT finding, one whose code changed (stale)
 * and one overlapping an earlier candidate are skipped, with the reason.
 */
async function editCheckout(dir: string, candidates: Candidate[]): Promise<EditOutcome> {
  const out: EditOutcome = { applied: [], skipped: [] };
  const byFile = new Map<string, Array<{ c: Candidate; range: LineRange }>>();
  const texts = new Map<string, { file: string; text: string } | undefined>();
  for (const c of candidates) {
    const { thread, marker } = c.finding;
    if (marker.side !== 'RIGHT') {
      out.skipped.push({ finding: c.finding, reason: 'left' });
      continue;
    }
    if (!texts.has(thread.path)) texts.set(thread.path, await readInside(dir, thread.path));
    const read = texts.get(thread.path);
    if (!read) {
      out.skipped.push({ finding: c.finding, reason: 'stale' });
      continue;
    }
    const code = { path: thread.path, fp: marker.fp, n: marker.n };
    const lineCount = c.suggestion.lineCount ?? threadLineCount(c.finding);
    const range = locateFinding(splitLines(read.text), code, thread.line, lineCount);
    if (!range) {
      out.skipped.push({ finding: c.finding, reason: 'stale' });
      continue;
    }
    const taken = byFile.get(thread.path) ?? [];
    if (taken.some((t) => overlaps(t.range, range))) {
      out.skipped.push({ finding: c.finding, reason: 'overlap' });
      continue;
    }
    taken.push({ c, range });
    byFile.set(thread.path, taken);
  }
  for (const [file, edits] of byFile) {
    const read = texts.get(file)!;
    let text = read.text;
    // Bottom-up, so the line numbers of the edits above stay right.
    for (const { c, range } of [...edits].sort((a, b) => b.range.start - a.range.start)) {
      text = replaceRange(splitLines(text), range, c.suggestion.text);
    }
    await overwrite(read.file, text);
    out.applied.push(...edits.map((e) => e.c.finding));
  }
  return out;
}

/**
 * Applies `candidates` (one finding, or `apply all`'s) on the head in one commit, pushes it,
 * resolves the applied threads and replies in the mention's thread.
 * @throws AuthError / PlatformError / GitError from the steps (nothing pushed before the push).
 */
async function applySuggestions(
  payload: JobPayload,
  candidates: Candidate[],
  all: boolean,
  platform: Platform,
  pr: PullRequestInfo,
  ctx: JobContext,
): Promise<WorkerJobOutcome> {
  const { comment } = payload;
  const signal = ctx.signal ? { signal: ctx.signal } : {};
  const reply = async (text: string, result: WorkerResult): Promise<WorkerJobOutcome> => {
    const posted = await platform.postReply(replyTargetOf(comment), safeReply(text));
    return { result, summary: text, posted };
  };
  if (!isSameRepository(pr)) return reply(forkReply(pr), { kind: 'fork', files: [] });
  const dir = workspacePath(
    ctx.config.workspace.base_dir,
    comment.platform,
    comment.repoFullName,
    comment.prNumber,
  );
  return withWorkspaceLock(
    dir,
    async () => {
      const workspace = await prepareWorkspace({
        baseDir: ctx.config.workspace.base_dir,
        platform: comment.platform,
        repoFullName: comment.repoFullName,
        prNumber: comment.prNumber,
        cloneUrl: pr.headCloneUrl,
        branch: pr.headBranch,
        credentials: await platform.getGitCredentials(),
        masker: ctx.masker,
        ...signal,
      });
      const edits = await editCheckout(workspace.dir, candidates);
      ctx.logger.info(
        { applied: edits.applied.length, skipped: edits.skipped.map((s) => s.reason) },
        'apply',
      );
      let sha: string | undefined;
      if (edits.applied.length > 0) {
        const author = workerAuthor(ctx.config.worker.bot_username);
        const pushed = await commitAndPush(workspace.dir, {
          message: applyCommitMessage(edits.applied, comment),
          authorName: author.name,
          authorEmail: author.email,
          cloneUrl: pr.headCloneUrl,
          branch: pr.headBranch,
          credentials: await platform.getGitCredentials(),
          masker: ctx.masker,
          ...signal,
        });
        if ('sha' in pushed) sha = pushed.sha;
      }
      const result: WorkerResult = sha ? { kind: 'pushed', sha } : { kind: 'no-changes' };
      const unresolved = sha ? await settleApplied(platform, comment, edits.applied, ctx) : [];
      // Verified findings (§22) carry their probe: it runs again on the new head (§24).
      const probes = sha ? await rerunProbes(workspace.dir, edits.applied, ctx) : [];
      const timeoutSeconds = ctx.config.review.verify_timeout_seconds;
      const withProbes = (text: string, probeText: string) =>
        probeText === '' ? text : `${text}\n\n${probeText}`;
      if (all) {
        const text = applyAllReply(edits.applied, edits.skipped, sha, pr, unresolved);
        return reply(withProbes(text, probesParagraph(probes, timeoutSeconds)), result);
      }
      const skipped = edits.skipped[0];
      if (sha) {
        const probe = probes[0] ? probeSentence(probes[0], timeoutSeconds) : '';
        return reply(withProbes(appliedReply(sha, pr, unresolved[0]?.reason), probe), result);
      }
      return reply(notAppliedReply(skipped?.reason ?? 'stale'), result);
    },
    signal,
  );
}

/**
 * Runs an `apply` command. Returns undefined when `apply [text]` was not written in a thread the
 * bot started with a finding: the mention is then an ordinary WORKER task.
 * @throws ReviewbotError when the platform is not enabled; AuthError / PlatformError / GitError /
 *   AgentError from the steps.
 */
export async function processApplyCommand(
  payload: JobPayload,
  command: ApplyCommand,
  ctx: JobContext,
): Promise<WorkerJobOutcome | undefined> {
  const { comment } = payload;
  const platform = platformFor(ctx, comment.platform, {
    repoFullName: comment.repoFullName,
    botType: 'worker',
  });
  const findings = await botFindings(platform, comment, ctx);
  if (command.kind === 'all') {
    const pr = await platform.getPullRequest(comment.repoFullName, comment.prNumber);
    ctx.progress?.start(progressTarget(pr));
    const candidates: Candidate[] = [];
    for (const finding of findings) {
      const suggestion = parseSuggestion(finding.thread.body);
      if (!finding.thread.resolved && suggestion) candidates.push({ finding, suggestion });
    }
    return applySuggestions(payload, candidates, true, platform, pr, ctx);
  }
  const finding = await findingOfThread(platform, findings, comment);
  if (!finding) return undefined;
  const reply = async (text: string): Promise<WorkerJobOutcome> => ({
    result: { kind: 'no-changes' },
    summary: text,
    posted: await platform.postReply(replyTargetOf(comment), safeReply(text)),
  });
  if (finding.marker.side !== 'RIGHT') return reply(notAppliedReply('left'));
  const suggestion = parseSuggestion(finding.thread.body);
  if (suggestion) {
    const pr = await platform.getPullRequest(comment.repoFullName, comment.prNumber);
    ctx.progress?.start(progressTarget(pr));
    return applySuggestions(payload, [{ finding, suggestion }], false, platform, pr, ctx);
  }
  // No suggestion: a WORKER agent run fixes the finding; the product commits, replies, resolves.
  let range: LineRange | undefined;
  let checkout: string | undefined;
  return processWorkerComment(payload, ctx, {
    async check(dir) {
      checkout = dir;
      const read = await readInside(dir, finding.thread.path);
      const code = { path: finding.thread.path, fp: finding.marker.fp, n: finding.marker.n };
      const lines = read ? splitLines(read.text) : undefined;
      range = lines ? locateFinding(lines, code, finding.thread.line, threadLineCount(finding)) : undefined;
      return range ? undefined : safeReply(notAppliedReply('stale'));
    },
    prompt: (pr) =>
      buildApplyPrompt({ pr, finding, comment, extra: command.extra, ...(range ? { range } : {}) }),
    message: applyCommitMessage([finding], comment),
    onPushed: async () => {
      const [unresolved] = await settleApplied(platform, comment, [finding], ctx);
      const [probe] = checkout ? await rerunProbes(checkout, [finding], ctx) : [];
      const notes = [
        unresolved ? unresolvedNote(unresolved.reason) : '',
        probe ? probeSentence(probe, ctx.config.review.verify_timeout_seconds) : '',
      ].filter((n) => n !== '');
      return notes.length > 0 ? safeReply(notes.join('\n\n')) : undefined;
    },
  });
}
