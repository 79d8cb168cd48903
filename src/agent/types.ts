/**
 * The runner interface every agent back end implements (provider API runner now, the code-agent
 * CLI runner later). Data flows in one direction: a prompt and a workspace in, text and usage out.
 */
import type { ToolSandbox } from './sandbox/types.js';
import type { TokenUsage } from './token-usage.js';

/**
 * Tool names (CONTRACT §8); REVIEWER gets Read/Glob/Grep/submit_review, WORKER adds Write/Edit/Bash.
 * `submit_matches` is the only tool of `reviewbot eval`'s judge (§23); the Claude Code runner does
 * not offer it (the judge then answers as JSON text). `submit_verification` is the answer tool of a
 * verification run (§22), not offered by the Claude Code runner either (JSON text then).
 */
export type ToolName =
  | 'Read'
  | 'Glob'
  | 'Grep'
  | 'Write'
  | 'Edit'
  | 'Bash'
  | 'submit_review'
  | 'submit_matches'
  | 'submit_verification';

/** One message of a conversation, kept between runs so a later run continues it. */
export interface ConversationMessage {
  role: 'user' | 'assistant';
  /** Plain text of the message (tool traffic is not kept across runs). */
  content: string;
}

/** Progress events streamed while the agent runs (for CLI progress and server logs). */
export type AgentEvent =
  | { type: 'turn'; turn: number; maxTurns: number }
  | { type: 'text'; text: string }
  | { type: 'tool_call'; tool: string; input: unknown }
  | { type: 'tool_result'; tool: string; isError: boolean; summary: string }
  /**
   * Usage so far. `aggregate`: a total over many model calls reported at once (the code-agent CLI's
   * result), not one call's: per-call prices (context tiers) cannot be applied to it.
   */
  | { type: 'usage'; usage: TokenUsage; aggregate?: boolean };

/** The size of one model call before it is sent. */
export interface ModelCallEstimate {
  /** Characters of everything the call sends: system prompt, tool definitions, messages. */
  promptChars: number;
  /** The most tokens the call may generate (its `max_tokens`). */
  maxOutputTokens: number;
}

/** Input of one agent run. */
export interface AgentRunOptions {
  /** Absolute path of the workspace; every tool is confined to it. */
  workspaceDir: string;
  systemPrompt: string;
  /** The new user message. */
  prompt: string;
  /** Earlier messages of this conversation, oldest first. */
  history?: ConversationMessage[];
  tools: ToolName[];
  /** Upper bound on model calls (agent turns). */
  maxTurns: number;
  /** Receives progress events; must not throw. */
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  /**
   * Asked before each model call is sent, with the call's size; `false` = do not send it: the run
   * ends with `AgentError` (the review's cost cap, §15). The API runner asks before every call; a
   * runner that cannot stop between its calls (the code-agent CLI) does not ask.
   */
  beforeModelCall?: (call: ModelCallEstimate) => boolean;
  /**
   * Session to continue (the `sessionId` of an earlier run of this conversation). The code-agent
   * CLI runner resumes it, falling back to a fresh session with `history` quoted when it cannot;
   * the API runner ignores it (it always sends `history`).
   */
  resumeSessionId?: string;
  /**
   * Which workspace paths the read tools may see (`ToolContext.isVisible`); absent: all. Set by
   * `review --local` (its tracked and untracked-but-not-ignored files). Both runners apply it to the
   * paths tools name; the API runner's Glob/Grep also skip invisible files.
   */
  isVisible?: (relative: string) => boolean;
  /**
   * The sandbox of this run's `Bash`, instead of the runner's: a verification run (§22) passes one
   * with no network whose bubblewrap mounts a disposable overlay over the workspace.
   */
  sandbox?: ToolSandbox;
}

/** Output of one agent run. */
export interface AgentRunResult {
  /** Final assistant text. */
  text: string;
  /**
   * Arguments of the last `submit_review` (or `submit_matches`, `submit_verification`) tool call, unvalidated, when the
   * model called it (CONTRACT §7 and §23 let the model deliver its answer either way).
   */
  submitted?: unknown;
  /** Identifies the conversation (API runner: a generated id; CLI runner: the agent's session id). */
  sessionId: string;
  /** Model identifier actually used, e.g. `claude-sonnet-4-5`. */
  model: string;
  usage: TokenUsage;
  /** Estimated cost in USD, when the runner knows it (the code-agent CLI runner reports it). */
  costUsd?: number;
  /**
   * True when `usage` is one total over the run's model calls (the code-agent CLI runner), not
   * reported per call: its `costUsd` is then the better figure.
   */
  usageAggregate?: boolean;
  /** Number of model calls made. */
  turns: number;
  /** `history` + this run's prompt and final answer, for the next run. */
  messages: ConversationMessage[];
}

/** An agent back end. `run` throws `AgentError` on provider errors, the turn limit or abort. */
export interface AgentRunner {
  run(options: AgentRunOptions): Promise<AgentRunResult>;
  /**
   * Optional: loads what `run` would load on first use (e.g. the provider's SDK), so a server pays
   * for it at start-up. Rejects like `run` would (e.g. ConfigError for a missing package).
   */
  preload?(): Promise<void>;
}
