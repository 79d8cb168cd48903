/**
 * The provider-API agent runner: drives an LLM through the AI SDK's tool loop (`streamText`) with
 * the workspace-confined tools of CONTRACT §8, forwarding progress and returning the final answer.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isStepCount, streamText, type ModelMessage } from 'ai';
import { AgentError } from '../errors.js';
import { onceUntilRejected } from '../once-until-rejected.js';
import type { Logger } from '../logger.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { providerAgentError } from './provider-error.js';
import { createLanguageModel, resolveApiKey, resolveModelChoice, type ProviderId } from './providers.js';
import { messageChars, toolDefinitionChars } from './call-estimate.js';
import { MAX_OUTPUT_TOKENS } from './call-limits.js';
import { cachedInstructions, placeBreakpoints } from './prompt-cache.js';
import { RunLauncher } from './sandbox/launcher.js';
import type { ToolSandbox } from './sandbox/types.js';
import { consumeAgentStream } from './stream-progress.js';
import {
  buildTools,
  type SubmitMatchesInput,
  type SubmitReviewInput,
  type SubmitVerificationInput,
} from './tools/index.js';
import type { AgentRunner, AgentRunOptions, AgentRunResult, ConversationMessage } from './types.js';
import { safeEmitter, workspaceRoot } from './run-support.js';

/** SDK retries of a failed model call (429, 5xx, network) before the run fails. */
export const DEFAULT_MAX_RETRIES = 2;

/** Sent instead of an empty prompt (lifecycle triggers have none; providers refuse empty messages). */
export const EMPTY_PROMPT_STAND_IN = 'Please proceed as instructed.';

/** Options of `createApiRunner`. */
export interface ApiRunnerOptions {
  provider: ProviderId;
  /** Model id; default: the provider's default (see `PROVIDERS`). */
  model?: string;
  /** `agent.base_url`, used as given; see `resolveBaseUrl` for the other sources. */
  baseUrl?: string;
  /** Where API keys and `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` are read (usually `process.env`). */
  env: NodeJS.ProcessEnv;
  /** HTTP client for the provider API (tests pass none: real HTTP to a loopback fake). */
  fetch?: typeof fetch;
  /** Masks secrets in tool output and errors; the API key is added to it. Default: one built from `env`. */
  masker?: SecretMasker;
  logger?: Logger;
  /** SDK retries per model call; default `DEFAULT_MAX_RETRIES` (2). */
  maxRetries?: number;
  /** Anthropic prompt caching (`cache_control` breakpoints, §15); default true. Ignored by other providers. */
  promptCaching?: boolean;
  /** Sandbox of WORKER `Bash` (CONTRACT §16); default: `auto` as detected on this host. */
  sandbox?: ToolSandbox;
}

/**
 * Creates an `AgentRunner` that calls the provider's API directly.
 * Throws `ConfigError` at once when the provider's key (or, for `openai-compatible`, base URL or
 * model) is missing. `run()` throws `AgentError` with a short, secret-free message when the
 * provider fails (after retries), the run is aborted, or `maxTurns` model calls were made while
 * the model still called tools without having submitted a review.
 */
export function createApiRunner(options: ApiRunnerOptions): AgentRunner {
  const choice = resolveModelChoice(
    { provider: options.provider, model: options.model, baseUrl: options.baseUrl },
    options.env,
  );
  const modelId = choice.modelId;
  // The provider's SDK is loaded by the first run (or `preload`), not when the runner is built.
  const languageModel = onceUntilRejected(() => createLanguageModel(choice, options.env, options.fetch));
  const masker =
    options.masker ?? new SecretMasker([...secretValues(process.env), ...secretValues(options.env)]);
  masker.add(resolveApiKey(options.provider, options.env));
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const caching = options.provider === 'anthropic' && options.promptCaching !== false;

  async function run(runOptions: AgentRunOptions): Promise<AgentRunResult> {
    const log = options.logger;
    const emit = safeEmitter(runOptions.onEvent, log);
    const { model } = await languageModel();
    const rootReal = await workspaceRoot(runOptions.workspaceDir);
    const maxTurns = Math.max(1, Math.floor(runOptions.maxTurns));
    const history = runOptions.history ?? [];
    // HOME of Bash subprocesses: outside the workspace, fresh per run, removed afterwards.
    const homeDir = await mkdtemp(path.join(tmpdir(), 'reviewbot-home-'));
    // Spawns the run's sandboxed commands inside one pids cgroup (root servers), started on first use.
    const launcher = new RunLauncher();
    let submitted: SubmitReviewInput | SubmitMatchesInput | SubmitVerificationInput | undefined;
    const sandbox = runOptions.sandbox ?? options.sandbox;
    try {
      const tools = buildTools(runOptions.tools, {
        rootReal,
        homeDir,
        launcher,
        masker,
        signal: runOptions.signal,
        ...(runOptions.isVisible ? { isVisible: runOptions.isVisible } : {}),
        ...(sandbox ? { sandbox } : {}),
        onSubmit: (review) => {
          submitted = review;
        },
        onSubmitMatches: (matches) => {
          submitted = matches;
        },
        onSubmitVerification: (verification) => {
          submitted = verification;
        },
      });
      const messages = toModelMessages(history, runOptions.prompt);
      const promptIndex = messages.length - 1;
      const ask = runOptions.beforeModelCall;
      const fixedChars = ask ? runOptions.systemPrompt.length + (await toolDefinitionChars(tools)) : 0;
      const result = streamText({
        model,
        instructions: caching ? cachedInstructions(runOptions.systemPrompt) : runOptions.systemPrompt,
        messages,
        ...(caching || ask
          ? {
              prepareStep: (step) => {
                const stepMessages = caching ? placeBreakpoints(step.messages, promptIndex) : step.messages;
                const call = {
                  promptChars: fixedChars + messageChars(stepMessages),
                  maxOutputTokens: MAX_OUTPUT_TOKENS,
                };
                // Refused (the review's cost cap): the call is not sent, the run ends with an error.
                if (ask && !ask(call)) throw new AgentError('model call refused before sending (cost cap)');
                return caching ? { messages: stepMessages } : undefined;
              },
            }
          : {}),
        tools,
        toolCallConcurrency: 1,
        // Explicit, so unknown model ids do not trigger the SDK's compatibility-mode warning.
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        stopWhen: [isStepCount(maxTurns), () => submitted !== undefined],
        maxRetries,
        abortSignal: runOptions.signal,
        onError: () => {
          // Reported as an `error` part of the stream and turned into an AgentError below.
        },
      });
      const outcome = await consumeAgentStream(result.fullStream, maxTurns, emit).catch((error: unknown) => {
        throw providerAgentError(options.provider, error, masker);
      });
      if (outcome.warnings.length > 0) log?.debug({ warnings: outcome.warnings }, 'LLM call warnings');
      if (runOptions.signal?.aborted || outcome.aborted) throw new AgentError('agent run aborted');
      if (outcome.error !== undefined) {
        const error = providerAgentError(options.provider, outcome.error, masker);
        // Thrown, and said once by whoever catches it (the CLI's one error line, the job's `job failed`).
        log?.debug({ provider: options.provider, model: modelId, turns: outcome.turns }, error.message);
        throw error;
      }
      if (submitted === undefined && outcome.lastFinishReason === 'tool-calls') {
        throw new AgentError(
          `the agent reached the turn limit (${maxTurns} model calls) while still calling tools`,
        );
      }
      log?.debug({ model: modelId, turns: outcome.turns, usage: outcome.usage }, 'agent run finished');
      const answer =
        outcome.finalText !== '' ? outcome.finalText : submitted ? JSON.stringify(submitted) : '';
      const transcript: ConversationMessage[] = [
        ...history,
        { role: 'user', content: runOptions.prompt },
        ...(answer === '' ? [] : [{ role: 'assistant' as const, content: answer }]),
      ];
      return {
        text: outcome.finalText,
        ...(submitted === undefined ? {} : { submitted }),
        sessionId: randomUUID(),
        model: modelId,
        usage: outcome.usage,
        turns: outcome.turns,
        messages: transcript,
      };
    } finally {
      await launcher.close();
      await rm(homeDir, { recursive: true, force: true });
    }
  }

  return {
    run,
    async preload() {
      await languageModel();
    },
  };
}

/**
 * The conversation sent to the model: `history` then `prompt` as the new user message. Providers
 * refuse empty messages, so empty history entries are skipped and an empty prompt is replaced by
 * `EMPTY_PROMPT_STAND_IN`.
 */
export function toModelMessages(history: readonly ConversationMessage[], prompt: string): ModelMessage[] {
  return [
    ...history
      .filter((message) => message.content.trim() !== '')
      .map((message): ModelMessage => ({ role: message.role, content: message.content })),
    { role: 'user', content: prompt.trim() === '' ? EMPTY_PROMPT_STAND_IN : prompt },
  ];
}
