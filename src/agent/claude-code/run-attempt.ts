/**
 * One `query()` of a Claude Code run: builds the SDK options (tools, permissions, isolation, hooks,
 * the `submit_review` server), iterates the message stream into a tracker, and reports how it ended
 * (result, thrown error, abort, time limit) without deciding what that means.
 */
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Logger } from '../../logger.js';
import { createClaudeProcess, type ClaudeProcess } from './claude-process.js';
import type { SecretMasker } from '../../secrets.js';
import type { AgentEvent, AgentRunOptions } from '../types.js';
import { createMessageTracker, type RunState } from './message-mapper.js';
import type { RunEnding } from './run-failure.js';
import type { ClaudeAgentSdk } from './sdk-loader.js';
import {
  createSubmitReviewServer,
  SUBMIT_SERVER_NAME,
  SUBMIT_TOOL_FULL_NAME,
} from './submit-review-server.js';
import { createToolGuardHooks } from './tool-guard.js';
import { claudeToolSet } from './tool-sets.js';

/** Lines of Claude Code's stderr kept for error messages. */
const STDERR_LINES = 10;

/** Input of `runAttempt`. */
export interface AttemptInput {
  sdk: ClaudeAgentSdk;
  /** The run's options (workspace, system prompt, tools, signal). */
  run: AgentRunOptions;
  /** The prompt sent (the run's prompt, or it with the history quoted). */
  prompt: string;
  /** Session id to resume. */
  resume?: string;
  /** Real path of the workspace. */
  rootReal: string;
  /** Model calls allowed. */
  maxTurns: number;
  /** The child's complete environment (`buildChildEnv`). */
  env: Record<string, string>;
  model?: string;
  cliPath?: string;
  /** Time limit of this query, ms. */
  timeoutMs: number;
  masker: SecretMasker;
  logger?: Logger;
  emit: (event: AgentEvent) => void;
  /** Rewrites Bash commands to run in the tool sandbox (CONTRACT §16). */
  wrapBash?: (command: string) => Promise<string>;
}

/** What one query produced: the tracked state, the last `submit_review` arguments, the ending. */
export interface Attempt {
  state: RunState;
  submitted: unknown;
  ending: RunEnding;
}

/**
 * The `query()` options of an attempt: `cwd` = the workspace; the run's tools only (all others
 * disallowed); `dontAsk` permissions (no prompts, anything not allowed is denied); no settings
 * files, no MCP configuration but our own; our system prompt; prompts taken verbatim (no `@file`
 * expansion or slash commands from pull-request text); the tool-guard hooks; Claude Code spawned
 * by `claudeProcess` (so the attempt can wait for its exit).
 */
export function buildQueryOptions(
  input: AttemptInput,
  controller: AbortController,
  claudeProcess: ClaudeProcess,
  onSubmit: (args: unknown) => void,
): Options {
  const tools = claudeToolSet(input.run.tools);
  const options: Options = {
    cwd: input.run.workspaceDir,
    tools: tools.builtIn,
    allowedTools: tools.allowed,
    disallowedTools: tools.disallowed,
    permissionMode: 'dontAsk',
    settingSources: [],
    strictMcpConfig: true,
    systemPrompt: input.run.systemPrompt,
    maxTurns: input.maxTurns,
    env: input.env,
    abortController: controller,
    verbatimPrompts: true,
    hooks: createToolGuardHooks({
      workspaceDir: input.run.workspaceDir,
      rootReal: input.rootReal,
      allowedTools: tools.allowed,
      masker: input.masker,
      ...(input.run.isVisible ? { isVisible: input.run.isVisible } : {}),
      ...(input.wrapBash ? { wrapBash: input.wrapBash } : {}),
    }),
    spawnClaudeCodeProcess: (spawnOptions) => claudeProcess.spawn(spawnOptions),
    ...(input.model ? { model: input.model } : {}),
    ...(input.cliPath ? { pathToClaudeCodeExecutable: input.cliPath } : {}),
    ...(input.resume ? { resume: input.resume } : {}),
  };
  if (tools.submitReview) {
    options.mcpServers = { [SUBMIT_SERVER_NAME]: createSubmitReviewServer(input.sdk, onSubmit) };
    options.toolAliases = { submit_review: SUBMIT_TOOL_FULL_NAME };
  }
  return options;
}

/**
 * Runs one query to its end. Never throws: a thrown error, the caller's abort and the time limit
 * are reported in `ending`; the Claude Code process is closed in every case, and the attempt
 * returns only once it has exited (killed when it does not exit on its own).
 */
export async function runAttempt(input: AttemptInput): Promise<Attempt> {
  const tracker = createMessageTracker(input.maxTurns, input.emit);
  const stderrTail: string[] = [];
  let submitted: unknown;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, input.timeoutMs);
  const onAbort = () => controller.abort();
  input.run.signal?.addEventListener('abort', onAbort, { once: true });

  const onStderr = (data: string) => {
    for (const raw of input.masker.mask(data).split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      stderrTail.push(line);
      if (stderrTail.length > STDERR_LINES) stderrTail.shift();
      input.logger?.debug({ line }, 'claude code stderr');
    }
  };
  const claudeProcess = createClaudeProcess(onStderr);
  const options = buildQueryOptions(input, controller, claudeProcess, (args) => {
    submitted = args;
  });

  let thrown: unknown;
  let stream: ReturnType<ClaudeAgentSdk['query']> | undefined;
  try {
    stream = input.sdk.query({ prompt: input.prompt, options });
    for await (const message of stream as AsyncIterable<SDKMessage>) {
      tracker.handle(message);
      if (message.type === 'system' && message.subtype === 'api_retry') {
        input.logger?.warn(
          { attempt: message.attempt, status: message.error_status },
          'Claude Code retries an API call',
        );
      }
    }
  } catch (error) {
    thrown = error;
  } finally {
    clearTimeout(timer);
    input.run.signal?.removeEventListener('abort', onAbort);
    try {
      stream?.close();
    } catch {
      // already closed
    }
    await claudeProcess.waitForExit();
  }
  return {
    state: tracker.state,
    submitted,
    ending: {
      ...(thrown === undefined ? {} : { thrown }),
      aborted: input.run.signal?.aborted === true,
      ...(timedOut ? { timedOutAfterMs: input.timeoutMs } : {}),
      maxTurns: input.maxTurns,
      stderrTail,
    },
  };
}
