/**
 * The code-agent CLI runner (the default when `agent.provider` is unset): runs Claude Code through
 * the Agent SDK's `query()` in the workspace, streams its messages as `AgentEvent`s, and returns the
 * final text, the session id (for `resume` on the next mention), usage and cost.
 */
import { AgentError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { SecretMasker, secretValues } from '../../secrets.js';
import { openCommandWrapper } from '../sandbox/command-wrapper.js';
import type { ToolSandbox } from '../sandbox/types.js';
import { EMPTY_PROMPT_STAND_IN, DEFAULT_MAX_RETRIES } from '../api-runner.js';
import type { AgentRunner, AgentRunOptions, AgentRunResult, ConversationMessage } from '../types.js';
import {
  buildChildEnv,
  CREDENTIAL_VARS,
  ensureAgentDirs,
  resolveClaudeBaseUrl,
  resolveClaudeCredential,
} from './environment.js';
import { buildPromptWithHistory } from './history-prompt.js';
import { usageOfResult } from './message-mapper.js';
import { runAttempt, type Attempt, type AttemptInput } from './run-attempt.js';
import { describeRunFailure, isResumeFailure } from './run-failure.js';
import { loadClaudeAgentSdk, type ClaudeAgentSdk } from './sdk-loader.js';
import { safeEmitter, workspaceRoot } from '../run-support.js';
import { isHarnessText } from '../tools/submitted-review.js';

/** Default time limit of one run, ms (30 minutes). */
export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** Options of `createClaudeCodeRunner`. */
export interface ClaudeCodeRunnerOptions {
  /** `agent.model`; default: Claude Code's default model. */
  model?: string;
  /** `agent.cli_path` / `AGENT_CLI_PATH`: another Claude Code executable; default: the SDK's own. */
  cliPath?: string;
  /** Upper bound on model calls per run; a run uses the smaller of this and its own `maxTurns`. */
  maxTurns?: number;
  /** `workspace.base_dir`; the agent's HOME and config live in `<base>/.reviewbot-agent/` (0700). */
  workspaceBaseDir: string;
  /** `agent.base_url` (a trailing `/v1` is dropped); else `ANTHROPIC_BASE_URL` of `env`. */
  baseUrl?: string;
  /** Where the credential (`ANTHROPIC_API_KEY` or `CLAUDE_CODE_OAUTH_TOKEN`) and PATH are read. */
  env: NodeJS.ProcessEnv;
  /** Masks secrets in tool output, errors and logs; the credential is added. Default: from `env`. */
  masker?: SecretMasker;
  logger?: Logger;
  /** Retries of a failed API call inside Claude Code; default `DEFAULT_MAX_RETRIES` (2). */
  maxRetries?: number;
  /** Time limit of one run, ms; default `DEFAULT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Loads the SDK; tests may pass their own. Default: dynamic import of the optional dependency. */
  loadSdk?: () => Promise<ClaudeAgentSdk>;
  /** Sandbox of `Bash` (CONTRACT §16); default: `auto` as detected on this host. */
  sandbox?: ToolSandbox;
}

/**
 * Creates the Claude Code runner.
 * @throws ConfigError at once when neither `ANTHROPIC_API_KEY` nor `CLAUDE_CODE_OAUTH_TOKEN` is set.
 * `run()` throws `AgentError` (secret-free) on an API error, the turn limit, the time limit, abort,
 * or when Claude Code cannot start; `UsageError` when the SDK is not installed. With
 * `resumeSessionId` it resumes that session; if that fails (e.g. the transcript is gone) it runs a
 * fresh session with `history` quoted in the prompt instead of failing.
 */
export function createClaudeCodeRunner(options: ClaudeCodeRunnerOptions): AgentRunner {
  const credential = resolveClaudeCredential(options.env);
  const masker =
    options.masker ?? new SecretMasker([...secretValues(process.env), ...secretValues(options.env)]);
  masker.add(credential.value);
  const baseUrl = resolveClaudeBaseUrl(options.baseUrl, options.env);
  const loadSdk = options.loadSdk ?? loadClaudeAgentSdk;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const log = options.logger;

  async function run(runOptions: AgentRunOptions): Promise<AgentRunResult> {
    if (runOptions.signal?.aborted) throw new AgentError('agent run aborted');
    const emit = safeEmitter(runOptions.onEvent, log);
    const rootReal = await workspaceRoot(runOptions.workspaceDir);
    const maxTurns = Math.max(1, Math.floor(Math.min(runOptions.maxTurns, options.maxTurns ?? Infinity)));
    const history = runOptions.history ?? [];
    const sdk = await loadSdk();
    const dirs = await ensureAgentDirs(options.workspaceBaseDir);
    const env = buildChildEnv({
      parentEnv: options.env,
      dirs,
      credential,
      ...(baseUrl ? { baseUrl } : {}),
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    });
    // Bash runs in the tool sandbox; the wrapper holds the run's sandbox HOME, proxy and cgroup.
    // A run without Bash (the REVIEWER) sets none of that up.
    const wrapper = runOptions.tools.includes('Bash')
      ? await openCommandWrapper(runOptions.sandbox ?? options.sandbox, CREDENTIAL_VARS)
      : undefined;
    const common: Omit<AttemptInput, 'prompt'> = {
      ...(wrapper ? { wrapBash: (command: string) => wrapper.wrap(command, rootReal) } : {}),
      sdk,
      run: runOptions,
      rootReal,
      maxTurns,
      env,
      timeoutMs,
      masker,
      emit,
      ...(options.model ? { model: options.model } : {}),
      ...(options.cliPath ? { cliPath: options.cliPath } : {}),
      ...(log ? { logger: log } : {}),
    };

    try {
      return await runWithResume(common, runOptions, history);
    } finally {
      await wrapper?.close();
    }
  }

  async function runWithResume(
    common: Omit<AttemptInput, 'prompt'>,
    runOptions: AgentRunOptions,
    history: ConversationMessage[],
  ): Promise<AgentRunResult> {
    let outcome: Attempt | undefined;
    if (runOptions.resumeSessionId) {
      const prompt = runOptions.prompt.trim() === '' ? EMPTY_PROMPT_STAND_IN : runOptions.prompt;
      const resumed = await runAttempt({ ...common, prompt, resume: runOptions.resumeSessionId });
      if (isResumeFailure(resumed.state, resumed.ending)) {
        const reason = describeRunFailure(resumed.state, resumed.ending, masker)?.message;
        log?.warn(
          { sessionId: runOptions.resumeSessionId, reason },
          'could not resume the agent session; starting a new one',
        );
      } else {
        outcome = resumed;
      }
    }
    outcome ??= await runAttempt({ ...common, prompt: buildPromptWithHistory(history, runOptions.prompt) });
    return finish(outcome, runOptions, history);
  }

  function finish(
    outcome: Attempt,
    runOptions: AgentRunOptions,
    history: ConversationMessage[],
  ): AgentRunResult {
    const { state, submitted, ending } = outcome;
    const hitTurnLimit = state.result?.subtype === 'error_max_turns';
    if (!(hitTurnLimit && submitted !== undefined)) {
      const failure = describeRunFailure(state, ending, masker);
      if (failure) {
        log?.warn({ sessionId: state.sessionId, turns: state.turns }, failure.message);
        throw failure;
      }
    }
    const result = state.result;
    const text = result?.subtype === 'success' ? masker.mask(result.result) : '';
    // The conversation remembers the review, not the model echoing the tool's answer.
    const answer = submitted !== undefined && isHarnessText(text) ? JSON.stringify(submitted) : text;
    const messages: ConversationMessage[] = [
      ...history,
      { role: 'user', content: runOptions.prompt },
      ...(answer === '' ? [] : [{ role: 'assistant' as const, content: answer }]),
    ];
    log?.debug(
      { sessionId: state.sessionId, turns: state.turns, costUsd: result?.total_cost_usd },
      'agent run finished',
    );
    return {
      text,
      ...(submitted === undefined ? {} : { submitted }),
      sessionId: state.sessionId ?? result?.session_id ?? '',
      model: state.model ?? options.model ?? 'claude-code',
      usage: result ? usageOfResult(result) : { inputTokens: 0, outputTokens: 0 },
      ...(result ? { costUsd: result.total_cost_usd } : {}),
      usageAggregate: true,
      turns: state.turns,
      messages,
    };
  }

  return { run };
}
