/**
 * `executeReview()` (seed "Handlers"): clone/update the workspace, fetch the diff and the existing
 * comments concurrently, build the prompt, run the agent read-only, parse its JSON (re-asking at most
 * twice), filter the findings. Posts nothing; used by the CLI and the webhook REVIEWER alike.
 */
import { REVIEWER_TOOLS } from '../agent/tools/names.js';
import type { AgentEvent, AgentRunResult, AgentRunner, ConversationMessage } from '../agent/types.js';
import type { Logger } from '../logger.js';
import type { Platform, PullRequestInfo } from '../platforms/types.js';
import type { SecretMasker } from '../secrets.js';
import { prepareWorkspace, withWorkspaceLock, workspacePath } from '../workspace/workspace.js';
import { annotateDiff } from './annotate.js';
import { buildReviewBody, renderInlineBody, type ReviewBodyExtras } from './body.js';
import { DiffIndex } from './diff-index.js';
import { toFileDiffs } from './diff.js';
import { filterFindings } from './filter.js';
import {
  memoryExtras,
  prepareMemory,
  settleMemory,
  stripMarkers,
  withoutMarkers,
  type EarlierFinding,
  type ReviewTrigger,
} from './memory/index.js';
import { parseReviewOutput, type ParseOutcome } from './parse-output.js';
import { buildReaskPrompt, buildReviewPrompt, buildReviewSystemPrompt } from './prompt.js';
import type { ServerReviewSettings } from './repo-rules.js';
import type { ExecuteReviewResult, IncrementalInfo, TokenUsage } from './types.js';

/** Phases reported while a review runs. */
export type ReviewPhase = 'pull-request' | 'workspace' | 'diff' | 'agent' | 'parse' | 'filter';

/** Progress of a review: a phase message, or an event of the agent. */
export type ReviewEvent = { type: 'phase'; phase: ReviewPhase; message: string } | AgentEvent;

/** Maximum re-asks when the model's output cannot be parsed (CONTRACT §7). */
const MAX_REASKS = 2;

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
  /** The server's `review.*` settings (§13, §14); default: incremental, nothing ignored. */
  reviewSettings?: ServerReviewSettings;
  /** `lifecycle` for a trigger (an unchanged head runs no agent), `request` (default) when asked. */
  trigger?: ReviewTrigger;
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

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
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
    const prepare = () =>
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
      return skippedOutcome(pullRequest, loaded.memory.plan.info, started);
    }
    const [workspace, { files, comments, botNames, memory }] = await Promise.all([
      prepare(),
      loaded ?? loading,
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
    // §7's "identical to one already posted" compares bodies without the hidden markers (§13).
    const botComments = comments
      .filter((c) => botNames.has(c.authorUsername.toLowerCase()))
      .map((c) => ({ ...c, body: stripMarkers(c.body) }));
    const shownDiff = annotateDiff(toFileDiffs(memory.shownFiles));

    const runOptions = {
      workspaceDir: workspace.dir,
      systemPrompt: buildReviewSystemPrompt(),
      tools: [...REVIEWER_TOOLS],
      maxTurns: input.maxTurns,
      onEvent: emit,
      ...(input.signal ? { signal: input.signal } : {}),
    };
    phase('agent', 'running the agent');
    let run: AgentRunResult = await input.runner.run({
      ...runOptions,
      prompt:
        buildReviewPrompt({
          pr: pullRequest,
          annotatedDiff: shownDiff,
          existingComments: comments,
          userPrompt: input.prompt ?? '',
        }) + (memory.promptExtra ? `\n\n${memory.promptExtra}` : ''),
      history: input.history ?? [],
      ...(input.resumeSessionId ? { resumeSessionId: input.resumeSessionId } : {}),
    });
    let usage = run.usage;
    let parsed: ParseOutcome = parseReviewOutput(run.submitted ?? run.text);
    for (let attempt = 1; !parsed.ok && attempt <= MAX_REASKS; attempt++) {
      phase(
        'parse',
        `the review could not be parsed (${parsed.error}); asking again (${attempt}/${MAX_REASKS})`,
      );
      run = await input.runner.run({
        ...runOptions,
        prompt: buildReaskPrompt(parsed.error),
        history: run.messages,
        resumeSessionId: run.sessionId,
      });
      usage = addUsage(usage, run.usage);
      parsed = parseReviewOutput(run.submitted ?? run.text);
    }

    if (parsed.ok) parsed = { ...parsed, output: withoutMarkers(parsed.output) };
    let result: ExecuteReviewResult;
    let inlineBodies: string[] = [];
    let bodyExtras: ReviewBodyExtras = memoryExtras(memory, pullRequest.headSha);
    let addressed: EarlierFinding[] = [];
    if (parsed.ok) {
      const render = (f: Parameters<typeof renderInlineBody>[0]): string =>
        renderInlineBody(f, (s, n) => platform.renderSuggestion(s, n));
      const filtered = filterFindings(parsed.output.comments, index, botComments, { renderBody: render });
      phase(
        'filter',
        `${filtered.kept.length} inline, ${filtered.rejected.length} not in diff, ${filtered.duplicates.length} already posted`,
      );
      const settled = await settleMemory({
        memory,
        pullRequest,
        kept: filtered.kept,
        rejected: filtered.rejected,
        prFileDiffs: fileDiffs,
        workspaceDir: workspace.dir,
      });
      addressed = settled.addressed;
      bodyExtras = settled.extras;
      inlineBodies = settled.kept.map((f, i) =>
        [render(f), settled.inlineMarkers[i] ?? ''].filter(Boolean).join('\n\n'),
      );
      result = {
        summary: parsed.output.summary,
        findings: settled.kept,
        rejected: settled.rejected,
        repeats: settled.repeats,
        incremental: memory.plan.info,
        body: buildReviewBody(parsed.output.summary, settled.rejected, settled.extras),
        sessionId: run.sessionId,
        model: run.model,
        usage,
        durationMs: 0,
        warnings: [],
      };
    } else {
      phase('parse', 'the review is still not valid JSON; posting the raw text');
      const raw = stripMarkers(run.text || (run.submitted ? JSON.stringify(run.submitted) : '')).trim();
      result = {
        summary: raw,
        findings: [],
        rejected: [],
        incremental: memory.plan.info,
        body: buildReviewBody(raw || '_The reviewer produced no output._', [], bodyExtras),
        sessionId: run.sessionId,
        model: run.model,
        usage,
        durationMs: 0,
        warnings: [],
      };
    }
    result.durationMs = Date.now() - started;
    return {
      result,
      pullRequest,
      commitSha: pullRequest.headSha,
      messages: run.messages,
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
