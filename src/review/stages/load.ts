/**
 * The load stage of a review: the pull request, then — under the workspace lock — the clone or
 * update of its workspace while its files, comments, bot names, review memory (§13, §14) and the
 * repository's learnings (§20) load. A lifecycle trigger on a head with nothing new to review ends
 * here: no git fetch, no agent run, nothing to post.
 */
import type { ExistingComment, PullRequestFile, PullRequestInfo } from '../../platforms/types.js';
import {
  prepareWorkspace,
  withWorkspaceLock,
  workspacePath,
  type PreparedWorkspace,
} from '../../workspace/workspace.js';
import { loadReviewLearnings, type TaughtLearnings } from '../learnings-step.js';
import { prepareMemory, type PreparedMemory } from '../memory/index.js';
import { earlierVerdict } from '../severity/verdict.js';
import type { IncrementalInfo } from '../types.js';
import type { ReviewContext, ReviewOutcome } from './types.js';

/** What the load stage gathered for a review that runs. */
export interface LoadedReview {
  pullRequest: PullRequestInfo;
  /** The workspace at the pull request's head (the reviewed directory itself for `--local`). */
  workspace: PreparedWorkspace;
  /** The pull request's files (base...head). */
  files: PullRequestFile[];
  /** Existing comments (conversation, inline, review bodies). */
  comments: ExistingComment[];
  /** The bot's own logins, lower-cased. */
  botNames: Set<string>;
  memory: PreparedMemory;
  taught: TaughtLearnings;
}

/** The outcome of the load stage: a review to run, or the outcome of one that needs no run. */
export type LoadOutcome =
  { kind: 'loaded'; loaded: LoadedReview } | { kind: 'skipped'; outcome: ReviewOutcome };

/** The pull request under review: the input's, else fetched from the platform. */
export async function fetchPullRequest(ctx: ReviewContext): Promise<PullRequestInfo> {
  const { input } = ctx;
  if (input.pullRequest) return input.pullRequest;
  ctx.phase('pull-request', `fetching ${input.repoFullName}#${input.prNumber}`);
  return input.platform.getPullRequest(input.repoFullName, input.prNumber);
}

/**
 * Runs `fn` holding the pull request's workspace lock; in place (`input.workspaceDir`, `--local`)
 * without a lock.
 */
export function withReviewWorkspace<T>(ctx: ReviewContext, fn: () => Promise<T>): Promise<T> {
  const { input } = ctx;
  if (input.workspaceDir) return fn();
  const dir = workspacePath(input.baseDir, input.platform.name, input.repoFullName, input.prNumber);
  return withWorkspaceLock(dir, fn, input.signal ? { signal: input.signal } : {});
}

/**
 * Loads a review (call under `withReviewWorkspace`). The diff, the comments and the review memory
 * load while git works; a lifecycle trigger decides first whether there is anything to review, so a
 * redundant trigger costs a few API reads and no git fetch (§13).
 * @throws AuthError / PlatformError from the platform, GitError from git.
 */
export async function loadReview(ctx: ReviewContext, pullRequest: PullRequestInfo): Promise<LoadOutcome> {
  const { input, logger } = ctx;
  const { platform } = input;
  const inPlace = input.workspaceDir;
  if (!inPlace)
    ctx.phase('workspace', `cloning/updating ${pullRequest.headRepoFullName}@${pullRequest.headBranch}`);
  ctx.phase('diff', 'fetching the diff and existing comments');
  const cloneOrUpdate = (): Promise<PreparedWorkspace> =>
    inPlace
      ? Promise.resolve({ dir: inPlace, headSha: pullRequest.headSha, action: 'updated' })
      : platform.getGitCredentials().then((credentials) =>
          prepareWorkspace({
            baseDir: input.baseDir,
            platform: platform.name,
            repoFullName: input.repoFullName,
            prNumber: input.prNumber,
            cloneUrl: pullRequest.headCloneUrl,
            branch: pullRequest.headBranch,
            credentials,
            onProgress: (message) => ctx.phase('workspace', message),
            ...(input.masker ? { masker: input.masker } : {}),
            ...(input.signal ? { signal: input.signal } : {}),
          }),
        );
  const loading = (async () => {
    const [files, comments, ownNames] = await Promise.all([
      platform.listPullRequestFiles(input.repoFullName, input.prNumber),
      platform.listComments(input.repoFullName, input.prNumber),
      platform.getBotUsernames(),
    ]);
    const botNames = new Set([...ownNames, ...(input.botUsernames ?? [])].map((n) => n.toLowerCase()));
    const memory = await prepareMemory({
      platform,
      pullRequest,
      prFiles: files,
      comments,
      botNames,
      ...(input.reviewSettings ? { server: input.reviewSettings } : {}),
      trigger: input.trigger ?? 'request',
      logger,
    });
    return { files, comments, botNames, memory };
  })();
  // A lifecycle trigger decides first whether there is anything to review. A person asking gets both at once.
  const loaded = input.trigger === 'lifecycle' ? await loading : undefined;
  if (loaded?.memory.skipAgent) {
    const since = (loaded.memory.plan.info.sinceSha ?? '').slice(0, 12);
    ctx.phase('diff', `nothing new to review since ${since}; no agent run`);
    const outcome = skippedOutcome(pullRequest, loaded.memory.plan.info, ctx.started);
    // Nothing to review still has a verdict (§21, `--fail-on`, a new head's gate): memory's open findings.
    outcome.result.verdict = earlierVerdict(loaded.memory.state.findings, loaded.memory.rules.blockOn);
    return { kind: 'skipped', outcome };
  }
  input.onReviewing?.(pullRequest);
  // §20: dismissals read from the bot's findings, then the repository's learnings.
  const taughtLoading = loadReviewLearnings(
    input.learnings,
    (loaded ? Promise.resolve(loaded) : loading).then((l) => ({
      platform,
      pr: pullRequest,
      findings: l.memory.state.findings,
      logger,
    })),
  );
  const [workspace, { files, comments, botNames, memory }, taught] = await Promise.all([
    cloneOrUpdate(),
    loaded ?? loading,
    taughtLoading,
  ]);
  const how = inPlace ? 'reviewing in place' : workspace.action;
  ctx.phase('workspace', `${how} ${workspace.dir} at ${workspace.headSha.slice(0, 12)}`);
  if (workspace.headSha !== pullRequest.headSha) {
    logger.warn(
      { workspaceSha: workspace.headSha, apiSha: pullRequest.headSha },
      'head branch moved during the review',
    );
  }
  return { kind: 'loaded', loaded: { pullRequest, workspace, files, comments, botNames, memory, taught } };
}

/** The outcome of a lifecycle trigger on the already-reviewed head: no agent ran, nothing to post (§13). */
function skippedOutcome(pullRequest: PullRequestInfo, info: IncrementalInfo, started: number): ReviewOutcome {
  return {
    result: {
      summary: '',
      findings: [],
      rejected: [],
      body: '',
      sessionId: '',
      model: '',
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: Date.now() - started,
      warnings: [],
      incremental: info,
      repeats: [],
    },
    pullRequest,
    commitSha: pullRequest.headSha,
    messages: [],
    inlineBodies: [],
    skipped: true,
  };
}
