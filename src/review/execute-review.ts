/**
 * `executeReview()` (seed "Handlers"): clone/update the workspace, fetch the diff and the existing
 * comments concurrently, triage the files and split the rest into parts under the budget (§15),
 * run one read-only agent per part (`runParts`, each parsing its JSON with at most two re-asks),
 * then merge, filter and add the receipt (`assembleReview`). Posts nothing; used by the CLI and the
 * webhook REVIEWER alike.
 */
import { REVIEWER_TOOLS } from '../agent/tools/names.js';
import type { AgentEvent, AgentRunner, ConversationMessage } from '../agent/types.js';
import type { Logger } from '../logger.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { prepareWorkspace, withWorkspaceLock, workspacePath } from '../workspace/workspace.js';
import { assembleReview } from './assemble-review.js';
import { baseFileReader } from './base-file-reader.js';
import { DiffIndex } from './diff-index.js';
import { toFileDiffs } from './diff.js';
import { DEFAULT_LIMITS, type ReviewLimits } from './limits.js';
import { conversationAfter, createPartSession } from './part-session.js';
import { planParts, type DiffPart } from './parts.js';
import { buildReviewSystemPrompt } from './prompt.js';
import { partLimitsFor, runParts } from './run-parts.js';
import { triageFiles } from './triage.js';
import type { ExecuteReviewResult } from './types.js';

/** Phases reported while a review runs. */
export type ReviewPhase = 'pull-request' | 'workspace' | 'diff' | 'agent' | 'parse' | 'filter';

/** Progress of a review: a phase message, or an event of the agent. */
export type ReviewEvent = { type: 'phase'; phase: ReviewPhase; message: string } | AgentEvent;

/** Input of `executeReview`. */
export interface ExecuteReviewInput {
  platform: Platform;
  runner: AgentRunner;
  repoFullName: string;
  prNumber: number;
  /** The pull request when already fetched (saves one API call). */
  pullRequest?: PullRequestInfo;
  /** Extra instructions from the requester. */
  prompt?: string;
  /** Earlier messages of this pull request's REVIEWER conversation. */
  history?: ConversationMessage[];
  /** Session to resume (code-agent CLI runner); the API runner continues from `history` instead. */
  resumeSessionId?: string;
  /** Workspace root (`workspace.base_dir`). */
  baseDir: string;
  maxTurns: number;
  /** Configured bot usernames (their comments count as the bot's own). */
  botUsernames?: string[];
  logger: Logger;
  masker?: SecretMasker;
  onEvent?: (event: ReviewEvent) => void;
  signal?: AbortSignal;
  /** §15 budgets, cost cap and prices (`reviewLimitsOf(config)`); default `DEFAULT_LIMITS`. */
  limits?: ReviewLimits;
  /**
   * Reads a file of the pull request's BASE commit (`.gitattributes` for triage); default: the
   * platform's `getFileContent` when it has one, else git in the workspace.
   */
  readBaseFile?: (path: string) => Promise<string | undefined>;
}

/** The result plus what posting and the session store need. */
export interface ReviewOutcome {
  result: ExecuteReviewResult;
  pullRequest: PullRequestInfo;
  /** Head SHA the findings' line numbers refer to. */
  commitSha: string;
  /** Conversation after this review, for the session store. */
  messages: ConversationMessage[];
  /** The platform's rendering of each kept finding's inline body, same order as `result.findings`. */
  inlineBodies: string[];
}

/** `parts`, or one empty part when there is none (the agent still answers the requester). */
function withOnePart(parts: DiffPart[]): DiffPart[] {
  return parts.length > 0 ? parts : [{ files: [], tokens: 0 }];
}

/**
 * Runs a review of `repoFullName#prNumber` without posting it.
 * @throws AuthError / PlatformError from the platform, GitError from git, AgentError from the agent.
 */
export async function executeReview(input: ExecuteReviewInput): Promise<ReviewOutcome> {
  const started = Date.now();
  const { platform, logger } = input;
  const emit = (event: ReviewEvent): void => {
    try {
      input.onEvent?.(event);
    } catch (error) {
      logger.warn({ err: error }, 'progress listener failed');
    }
  };
  const phase = (p: ReviewPhase, message: string): void => emit({ type: 'phase', phase: p, message });

  let pr = input.pullRequest;
  if (!pr) {
    phase('pull-request', `fetching ${input.repoFullName}#${input.prNumber}`);
    pr = await platform.getPullRequest(input.repoFullName, input.prNumber);
  }
  const pullRequest = pr;
  const dir = workspacePath(input.baseDir, input.repoFullName, input.prNumber);

  return withWorkspaceLock(dir, async () => {
    phase('workspace', `cloning/updating ${pullRequest.headRepoFullName}@${pullRequest.headBranch}`);
    phase('diff', 'fetching the diff and existing comments');
    const [workspace, files, comments, ownNames] = await Promise.all([
      platform.getGitCredentials().then((credentials) =>
        prepareWorkspace({
          baseDir: input.baseDir,
          repoFullName: input.repoFullName,
          prNumber: input.prNumber,
          cloneUrl: pullRequest.headCloneUrl,
          branch: pullRequest.headBranch,
          credentials,
          onProgress: (message) => phase('workspace', message),
          ...(input.masker ? { masker: input.masker } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        }),
      ),
      platform.listPullRequestFiles(input.repoFullName, input.prNumber),
      platform.listComments(input.repoFullName, input.prNumber),
      platform.getBotUsernames(),
    ]);
    phase('workspace', `${workspace.action} ${workspace.dir} at ${workspace.headSha.slice(0, 12)}`);
    if (workspace.headSha !== pullRequest.headSha) {
      logger.warn(
        { workspaceSha: workspace.headSha, apiSha: pullRequest.headSha },
        'head branch moved during the review',
      );
    }

    const fileDiffs = toFileDiffs(files);
    const index = DiffIndex.fromFiles(fileDiffs);
    phase('diff', `${files.length} files, ${comments.length} existing comments`);
    const limits = input.limits ?? DEFAULT_LIMITS;
    const gitattributes = await (
      input.readBaseFile ??
      baseFileReader({
        platform,
        pr: pullRequest,
        dir: workspace.dir,
        logger,
        ...(input.masker ? { masker: input.masker } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      })
    )('.gitattributes');
    const triage = await triageFiles({ files: fileDiffs, ignore: limits.ignore, gitattributes });
    // The whole prompt of a part, not only its diff, stays within review.max_diff_tokens.
    const plan = planParts(
      triage.kept,
      partLimitsFor(limits, {
        systemPrompt: buildReviewSystemPrompt(),
        pr: pullRequest,
        existingComments: comments,
        userPrompt: input.prompt ?? '',
        history: input.history ?? [],
      }),
    );
    phase(
      'diff',
      `${triage.kept.length} files to review in ${plan.parts.length} part(s), ${triage.skipped.length} skipped, ${plan.notReviewed.length} over the budget`,
    );

    const botNames = new Set([...ownNames, ...(input.botUsernames ?? [])].map((n) => n.toLowerCase()));
    const botComments = comments.filter((c) => botNames.has(c.authorUsername.toLowerCase()));

    phase('agent', plan.parts.length > 1 ? `running ${plan.parts.length} agent runs` : 'running the agent');
    const session = createPartSession({
      runner: input.runner,
      base: {
        workspaceDir: workspace.dir,
        systemPrompt: buildReviewSystemPrompt(),
        tools: [...REVIEWER_TOOLS],
        maxTurns: input.maxTurns,
      },
      limits,
      signal: input.signal,
      onEvent: emit,
      onPhase: (message) => phase('parse', message),
    });
    const parts = await runParts({
      context: session.context,
      // Nothing left to show: no agent run, unless the requester asked something.
      parts: plan.parts.length > 0 || input.prompt?.trim() ? withOnePart(plan.parts) : [],
      pr: pullRequest,
      existingComments: comments,
      userPrompt: input.prompt ?? '',
      history: input.history ?? [],
      resumeSessionId: input.resumeSessionId,
      maxParallelRuns: limits.maxParallelRuns,
    }).finally(() => session.dispose());
    const run = parts.results.find((r) => r?.run)?.run;

    const { result, inlineBodies } = assembleReview({
      platform,
      outcome: parts,
      plan,
      triage,
      index,
      botComments,
      meter: session.meter,
      maxCostUsd: limits.maxCostUsd,
      started,
      onPhase: (message) => phase('filter', message),
    });
    const messages = conversationAfter(input.history ?? [], parts, run);
    return { result, pullRequest, commitSha: pullRequest.headSha, messages, inlineBodies };
  });
}
