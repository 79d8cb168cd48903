/**
 * The WORKER job (seed `worker.process_comment()`): clone/update the pull request's workspace, run
 * the agent with every tool (CONTRACT §8), then commit any change as the bot and push it to the head
 * branch (same-repository branches only), and reply in the mention's thread.
 */
import { bashUnavailableMessage, defaultSandboxStatus } from '../agent/sandbox/index.js';
import { WORKER_TOOLS } from '../agent/tools/names.js';
import type { Posted, PullRequestInfo } from '../platforms/types.js';
import { commitAndPush, listWorkspaceChanges } from '../workspace/commit-and-push.js';
import { prepareWorkspace, withWorkspaceLock, workspacePath } from '../workspace/workspace.js';
import { logProgress, platformFor, trimConversation, type JobContext } from './job-context.js';
import { progressTarget } from './progress.js';
import { replyTargetOf } from './reply-target.js';
import { sessionKeyOf, type JobPayload } from './types.js';
import { buildWorkerPrompt, buildWorkerSystemPrompt } from './worker-prompt.js';
import { workerAuthor, workerCommitMessage, workerReplyBody, type WorkerResult } from './worker-reply.js';

/** What a WORKER job did. */
export interface WorkerJobOutcome {
  result: WorkerResult;
  /** The agent's final text, secrets masked. */
  summary: string;
  posted: Posted;
}

/**
 * A task given to the WORKER by the product instead of the mention's text (the `apply` command,
 * CONTRACT §24): its user prompt, its commit message, and what to do once the commit is pushed.
 */
export interface WorkerTask {
  /** The user prompt for pull request `pr`. */
  prompt(pr: PullRequestInfo): string;
  /** The commit message. */
  message: string;
  /**
   * Called on the prepared checkout before the agent runs: a text to reply instead of running it
   * (nothing is committed then), or undefined to go on.
   */
  check?(dir: string): Promise<string | undefined>;
  /**
   * Called with the pushed commit's SHA before the reply is posted (e.g. resolve a thread); a text
   * it returns ends the reply (e.g. why the thread could not be resolved).
   */
  onPushed?(sha: string): Promise<string | undefined>;
}

/** True when the head branch lives in the pull request's own repository (so the bot may push). */
export function isSameRepository(pr: PullRequestInfo): boolean {
  return !pr.isFork && pr.headRepoFullName.toLowerCase() === pr.repoFullName.toLowerCase();
}

/**
 * The paths the agent changed in workspace `dir` (`listWorkspaceChanges`: the workspace is checked
 * for planted repositories, links and configuration first; commits the agent made are folded).
 * @throws GitError when the workspace was tampered with or git fails.
 */
function changedPaths(dir: string, baseSha: string, ctx: JobContext): Promise<string[]> {
  return listWorkspaceChanges(dir, baseSha, {
    masker: ctx.masker,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    onFoldCommits: (head) =>
      ctx.logger.warn({ head, baseSha }, 'the agent committed by itself; folding its commits into one'),
  });
}

/**
 * Runs a WORKER job: fetches the pull request, prepares its workspace under the workspace lock,
 * runs the agent (WORKER tools, the session's earlier messages as history), then:
 * - no change → replies with the agent's summary;
 * - changes on a same-repository branch → commits them as the worker bot and pushes to the head
 *   branch, replies with the summary and the pushed commit SHA;
 * - changes on a fork's branch → pushes nothing, replies that fork branches are not writable.
 * The reply goes into the mention's thread; the conversation is saved afterwards. With `task`, its
 * prompt and commit message replace the mention's, and `task.onPushed` runs after a push.
 * @throws ReviewbotError when the platform is not enabled; AuthError / PlatformError / GitError /
 *   AgentError from the steps (a failure before the push pushes nothing).
 */
export async function processWorkerComment(
  payload: JobPayload,
  ctx: JobContext,
  task?: WorkerTask,
): Promise<WorkerJobOutcome> {
  const { comment } = payload;
  const platform = platformFor(ctx, comment.platform, {
    repoFullName: comment.repoFullName,
    botType: 'worker',
  });
  const signal = ctx.signal ? { signal: ctx.signal } : {};
  const pr = await platform.getPullRequest(comment.repoFullName, comment.prNumber);
  ctx.progress?.start(progressTarget(pr));
  const baseDir = ctx.config.workspace.base_dir;
  const dir = workspacePath(baseDir, comment.platform, comment.repoFullName, comment.prNumber);
  const key = sessionKeyOf(payload);

  // The tree lock of this process and `pr-<N>.lock` (other pods on a shared base) for the whole job.
  const locked = <T>(fn: () => Promise<T>): Promise<T> => withWorkspaceLock(dir, fn, signal);
  return locked(async () => {
    const workspace = await prepareWorkspace({
      baseDir,
      platform: comment.platform,
      repoFullName: comment.repoFullName,
      prNumber: comment.prNumber,
      cloneUrl: pr.headCloneUrl,
      branch: pr.headBranch,
      credentials: await platform.getGitCredentials(),
      masker: ctx.masker,
      ...signal,
    });
    ctx.logger.info({ action: workspace.action, headSha: workspace.headSha }, 'workspace ready');
    const refusal = await task?.check?.(workspace.dir);
    if (refusal !== undefined) {
      const posted = await platform.postReply(replyTargetOf(comment), refusal);
      return { result: { kind: 'no-changes' }, summary: refusal, posted };
    }
    const previous = await ctx.store.load(key);
    const run = await ctx.createRunner('worker').run({
      workspaceDir: workspace.dir,
      systemPrompt: buildWorkerSystemPrompt(),
      prompt: task ? task.prompt(pr) : buildWorkerPrompt({ pr, comment, request: payload.prompt }),
      history: previous?.messages ?? [],
      ...(previous ? { resumeSessionId: previous.sessionId } : {}),
      tools: [...WORKER_TOOLS],
      maxTurns: ctx.config.agent.max_turns,
      onEvent: logProgress(ctx.logger),
      ...signal,
    });
    ctx.metrics.agentTokens('worker', run.usage);
    const summary = ctx.masker.mask(run.text.trim());

    const files = await changedPaths(workspace.dir, workspace.headSha, ctx);
    let result: WorkerResult = { kind: 'no-changes' };
    let note: string | undefined;
    if (files.length > 0 && !isSameRepository(pr)) {
      result = { kind: 'fork', files };
    } else if (files.length > 0) {
      const author = workerAuthor(ctx.config.worker.bot_username);
      const pushed = await commitAndPush(workspace.dir, {
        message: task?.message ?? workerCommitMessage(payload.prompt, comment),
        authorName: author.name,
        authorEmail: author.email,
        cloneUrl: pr.headCloneUrl,
        branch: pr.headBranch,
        credentials: await platform.getGitCredentials(),
        masker: ctx.masker,
        ...signal,
      });
      if ('sha' in pushed) result = { kind: 'pushed', sha: pushed.sha };
      if ('sha' in pushed) note = await task?.onPushed?.(pushed.sha);
    }
    ctx.logger.info({ result: result.kind, files: files.length }, 'worker finished');

    // Without a sandbox (`auto`) the agent's Bash was refused: the reply says so and why (§16).
    const sandbox = ctx.sandbox?.status ?? (await defaultSandboxStatus());
    let body = workerReplyBody(summary, result, pr);
    if (note) body += `\n\n${note}`;
    if (sandbox.kind === 'unavailable') body += `\n\n> **Note:** ${bashUnavailableMessage(sandbox.reason)}`;
    const posted = await platform.postReply(replyTargetOf(comment), body);
    await ctx.store.save(key, {
      sessionId: run.sessionId,
      messages: trimConversation(run.messages),
      updatedAt: new Date().toISOString(),
    });
    return { result, summary, posted };
  });
}
