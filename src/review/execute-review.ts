/**
 * `executeReview()` (seed "Handlers"): clone/update the workspace, fetch the diff and the existing
 * comments concurrently, triage the files and split the rest into parts under the budget (§15),
 * run one read-only agent per part (`runParts`, each parsing its JSON with at most two re-asks),
 * have several parts' summaries written as one (`synthesizeSummary`, §18), then merge, filter and
 * add the receipt (`assembleReview`). Posts nothing; used by the CLI and the
 * webhook REVIEWER alike.
 */
import { REVIEWER_TOOLS } from '../agent/tools/names.js';
import type { AgentEvent, AgentRunner, ConversationMessage } from '../agent/types.js';
import type { Logger } from '../logger.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { prepareWorkspace, withWorkspaceLock, workspacePath } from '../workspace/workspace.js';
import { assembleReview } from './assemble-review.js';
import { baseFileReader, baseHeadsReader } from './base-file-reader.js';
import { DiffIndex } from '../diff/diff-index.js';
import { toFileDiffs } from '../diff/diff.js';
import { DEFAULT_LIMITS, type ReviewLimits } from './limits.js';
import { conversationAfter, createPartSession } from './part-session.js';
import { planParts, type DiffPart } from './parts.js';
import { buildReviewSystemPrompt } from './prompt.js';
import { partLimitsFor, runParts } from './run-parts.js';
import { synthesizeSummary } from './synthesis.js';
import { triageFiles } from './triage.js';
import type { ReviewBodyExtras } from './body.js';
import {
  prepareMemory,
  settleMemory,
  neutraliseMarkers,
  withoutMarkers,
  withoutOwnMarker,
  type EarlierFinding,
  type ReviewTrigger,
} from './memory/index.js';
import type { ServerReviewSettings } from './repo-rules.js';
import { loadReviewLearnings, type ReviewLearningsInput } from './learnings-step.js';
import { dismissalKeys, earlierVerdict } from './severity/verdict.js';
import type { ExecuteReviewResult, IncrementalInfo } from './types.js';

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
  /**
   * Review this existing directory as it is (`review --local`, §17): no clone and no workspace
   * lock; its files are what the agent reads.
   */
  workspaceDir?: string;
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
  /** The server's `review.*` settings (§13, §14); default: incremental, nothing ignored. */
  reviewSettings?: ServerReviewSettings;
  /** `lifecycle` for a trigger (an unchanged head runs no agent), `request` (default) when asked. */
  trigger?: ReviewTrigger;
  /**
   * Called once when the review is going to run (not for a lifecycle trigger on an already-reviewed
   * head), with the pull request whose head it reviews: where progress starts (§18). Must not throw.
   */
  onReviewing?: (pullRequest: PullRequestInfo) => void;
  /** The repository's learnings (§20): dismissals read, learnings shown, dismissed findings dropped. */
  learnings?: ReviewLearningsInput;
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
  /** True when nothing is to be posted: a lifecycle trigger on the already-reviewed head (§13). */
  skipped?: boolean;
  /** Body sections of review memory (§13), for a body rebuilt when posting falls back. */
  bodyExtras?: ReviewBodyExtras;
  /** The bot's open threads whose code changed (listed in the body): `postReview` resolves them (§13). */
  addressed?: EarlierFinding[];
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
  const dir = workspacePath(input.baseDir, platform.name, input.repoFullName, input.prNumber);

  const inPlace = input.workspaceDir;
  const prepare: typeof prepareWorkspace = inPlace
    ? async () => ({ dir: inPlace, headSha: pullRequest.headSha, action: 'updated' })
    : prepareWorkspace;
  const locked = <T>(fn: () => Promise<T>): Promise<T> =>
    inPlace ? fn() : withWorkspaceLock(dir, fn, input.signal ? { signal: input.signal } : {});

  return locked(async () => {
    if (!inPlace)
      phase('workspace', `cloning/updating ${pullRequest.headRepoFullName}@${pullRequest.headBranch}`);
    phase('diff', 'fetching the diff and existing comments');
    const cloneOrUpdate = () =>
      platform.getGitCredentials().then((credentials) =>
        prepare({
          baseDir: input.baseDir,
          platform: platform.name,
          repoFullName: input.repoFullName,
          prNumber: input.prNumber,
          cloneUrl: pullRequest.headCloneUrl,
          branch: pullRequest.headBranch,
          credentials,
          onProgress: (message) => phase('workspace', message),
          ...(input.masker ? { masker: input.masker } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        }),
      );
    // The diff, the comments and the review memory (rules, threads, comparison) load while git works.
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
    // A lifecycle trigger decides first whether there is anything to review: a redundant trigger
    // then costs a few API reads and no git fetch (§13). A person asking gets both at once.
    const loaded = input.trigger === 'lifecycle' ? await loading : undefined;
    if (loaded?.memory.skipAgent) {
      const since = (loaded.memory.plan.info.sinceSha ?? '').slice(0, 12);
      phase('diff', `nothing new to review since ${since}; no agent run`);
      const outcome = skippedOutcome(pullRequest, loaded.memory.plan.info, started);
      // Nothing to review still has a verdict (§21, `--fail-on`, a new head's gate): memory's open findings.
      outcome.result.verdict = earlierVerdict(loaded.memory.state.findings, loaded.memory.rules.blockOn);
      return outcome;
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
    phase('workspace', `${how} ${workspace.dir} at ${workspace.headSha.slice(0, 12)}`);
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
    const baseInput = {
      platform,
      pr: pullRequest,
      dir: workspace.dir,
      logger,
      ...(input.masker ? { masker: input.masker } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    };
    const gitattributes = await (input.readBaseFile ?? baseFileReader(baseInput))('.gitattributes');
    // The files of this review's plan (§13: only the changes since the last review when it is
    // incremental); ignore globs of the server and the base commit's `.reviewbot.yaml` (§14).
    // Skipping is decided on the whole pull request (a file it added earlier is `modified` in an
    // incremental comparison, where the content rules would no longer see it as new); the model is
    // shown what is not skipped of this review's plan (§13: only the changes since the last review).
    const wholeTriage = await triageFiles({
      files: fileDiffs,
      ignore: [...new Set([...limits.ignore, ...memory.rules.ignore])],
      gitattributes,
      logger,
      // Modified files are generated or minified by their BASE version, which the head cannot forge.
      readBaseHeads: baseHeadsReader(baseInput),
    });
    const skippedPaths = new Set(wholeTriage.skipped.map((f) => f.path));
    const triage = {
      kept: toFileDiffs(memory.plan.files).filter((f) => !skippedPaths.has(f.path)),
      skipped: wholeTriage.skipped,
    };
    // The whole prompt of a part, not only its diff, stays within review.max_diff_tokens.
    const learned = await taught.forPaths(triage.kept.map((f) => f.path));
    const promptExtra = [memory.promptExtra, learned.promptSection].filter((p) => p !== '').join('\n\n');
    const plan = planParts(
      triage.kept,
      partLimitsFor(limits, {
        systemPrompt: buildReviewSystemPrompt(),
        pr: pullRequest,
        existingComments: comments,
        userPrompt: [input.prompt ?? '', promptExtra].filter((p) => p !== '').join('\n\n'),
        history: input.history ?? [],
      }),
    );
    phase(
      'diff',
      `${triage.kept.length} files to review in ${plan.parts.length} part(s), ${triage.skipped.length} skipped, ${plan.notReviewed.length} over the budget`,
    );

    // §7's "identical to one already posted" compares bodies without the hidden markers (§13).
    const botComments = comments
      .filter((c) => botNames.has(c.authorUsername.toLowerCase()))
      .map((c) => ({ ...c, body: withoutOwnMarker(c.body) }));

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
      promptExtra,
      history: input.history ?? [],
      resumeSessionId: input.resumeSessionId,
      maxParallelRuns: limits.maxParallelRuns,
    })
      // One voice (§18): several parts' summaries become one, by one model call without tools.
      .then((outcome) =>
        synthesizeSummary(session.context, {
          pr: pullRequest,
          outcome,
          skipped: (path) => skippedPaths.has(path),
        }),
      )
      .finally(() => session.dispose());
    // A marker written by the model must not pass for the bot's own (§13).
    const merged = withoutMarkers({ summary: parts.summary, comments: parts.comments });
    const outcome = { ...parts, ...merged, unparsed: parts.unparsed.map(neutraliseMarkers) };
    const run = parts.results.find((r) => r?.run)?.run;

    let settled: Awaited<ReturnType<typeof settleMemory>> | undefined;
    const { result, inlineBodies, bodyExtras } = await assembleReview({
      platform,
      outcome,
      plan,
      triage,
      index,
      botComments,
      meter: session.meter,
      maxCostUsd: limits.maxCostUsd,
      started,
      onPhase: (message) => phase('filter', message),
      settle: async (kept, rejected, coverage) => {
        const split = taught.dropDismissed(kept, fileDiffs);
        settled = await settleMemory({
          memory,
          pullRequest,
          kept: split.kept,
          rejected,
          complete: coverage.complete,
          prFileDiffs: fileDiffs,
          workspaceDir: workspace.dir,
          dismissed: dismissalKeys(taught.all),
        });
        if (split.notice) settled.extras.after.push(split.notice);
        return settled;
      },
    });
    result.incremental = memory.plan.info;
    if (input.learnings) {
      // Only what a model was actually given (no agent run: nothing applied).
      result.learningsApplied = parts.results.length > 0 ? learned.applied : [];
      result.dismissed = taught.dismissed();
    }
    const messages = conversationAfter(input.history ?? [], parts, run);
    const addressed: EarlierFinding[] = settled?.addressed ?? [];
    return {
      result,
      pullRequest,
      commitSha: pullRequest.headSha,
      messages,
      inlineBodies,
      bodyExtras,
      addressed,
    };
  });
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
