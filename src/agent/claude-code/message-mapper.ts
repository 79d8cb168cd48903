/**
 * Reads the message stream of one Claude Code run: forwards progress as `AgentEvent`s (the same
 * events the API runner emits) and keeps what the runner returns — session id, model, turns, the
 * result message. Claude Code sends one assistant message per content block, several sharing one
 * API message id; a new id is a new turn (model call).
 */
import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { TokenUsage } from '../token-usage.js';
import { summarize } from '../stream-progress.js';
import type { AgentEvent } from '../types.js';

/** Model name Claude Code gives the assistant messages it makes up itself (API errors). */
const SYNTHETIC_MODEL = '<synthetic>';

/** What the tracker has seen so far. */
export interface RunState {
  sessionId?: string;
  /** Model reported by the init message (or by the first assistant message). */
  model?: string;
  /** Model calls that produced output (synthetic error messages not counted). */
  turns: number;
  /** True once a real model answer arrived (a resumed session that fails before this may fall back). */
  sawModelOutput: boolean;
  /** Text of the last synthetic assistant message (Claude Code's own API error text). */
  syntheticText?: string;
  /** API retries Claude Code announced (`api_retry` system messages). */
  apiRetries: number;
  result?: SDKResultMessage;
}

/** A message handler plus the state it fills. */
export interface MessageTracker {
  state: RunState;
  handle(message: SDKMessage): void;
}

/** The name shown in events: `mcp__<server>__<tool>` becomes `<tool>`. */
export function displayToolName(name: string): string {
  const match = /^mcp__[^_]+(?:_[^_]+)*__(.+)$/.exec(name);
  return match?.[1] ?? name;
}

/**
 * Token totals of a result: the sum over `modelUsage` (every model call of the run) when present,
 * else the main loop's `usage`. Input tokens include cache reads and writes.
 */
export function usageOfResult(result: SDKResultMessage): TokenUsage {
  const perModel = Object.values(result.modelUsage ?? {});
  if (perModel.length > 0) {
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let read = 0;
    let write = 0;
    for (const m of perModel) {
      usage.inputTokens += m.inputTokens + m.cacheReadInputTokens + m.cacheCreationInputTokens;
      usage.outputTokens += m.outputTokens;
      read += m.cacheReadInputTokens;
      write += m.cacheCreationInputTokens;
    }
    return withCache(usage, read, write);
  }
  const u = result.usage;
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  return withCache(
    { inputTokens: (u.input_tokens ?? 0) + read + write, outputTokens: u.output_tokens ?? 0 },
    read,
    write,
  );
}

/** `usage` with its cache reads and writes (CONTRACT §15), each only when non-zero. */
function withCache(usage: TokenUsage, read: number, write: number): TokenUsage {
  return {
    ...usage,
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
  };
}

/** Text of a tool_result block's content (a string or text blocks). */
function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content as Array<{ type?: string; text?: unknown }>) {
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

/**
 * Creates a tracker. `emit` receives `turn` at each new model call (with `maxTurns`), `text` for
 * each non-empty text block, `tool_call` and `tool_result` (with a one-line summary), and `usage`
 * with the run's totals when the result arrives. Subagent traffic (`parent_tool_use_id` set) is
 * ignored; runs have no subagents.
 */
export function createMessageTracker(maxTurns: number, emit: (event: AgentEvent) => void): MessageTracker {
  const state: RunState = { turns: 0, sawModelOutput: false, apiRetries: 0 };
  const toolNames = new Map<string, string>();
  let lastMessageId: string | undefined;

  function onAssistant(message: Extract<SDKMessage, { type: 'assistant' }>): void {
    const content = (message.message.content ?? []) as Block[];
    if (message.message.model === SYNTHETIC_MODEL) {
      const text = content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n');
      if (text.trim() !== '') state.syntheticText = text.trim();
      return;
    }
    state.sawModelOutput = true;
    state.model ??= message.message.model;
    if (message.message.id !== lastMessageId) {
      lastMessageId = message.message.id;
      state.turns += 1;
      emit({ type: 'turn', turn: state.turns, maxTurns });
    }
    for (const block of content) {
      if (block.type === 'text' && (block.text ?? '').trim() !== '') {
        emit({ type: 'text', text: block.text ?? '' });
      } else if (block.type === 'tool_use' && block.id && block.name) {
        const tool = displayToolName(block.name);
        toolNames.set(block.id, tool);
        emit({ type: 'tool_call', tool, input: block.input });
      }
    }
  }

  function onUser(message: Extract<SDKMessage, { type: 'user' }>): void {
    const content = message.message.content;
    if (!Array.isArray(content)) return;
    for (const block of content as Block[]) {
      if (block.type !== 'tool_result') continue;
      emit({
        type: 'tool_result',
        tool: toolNames.get(block.tool_use_id ?? '') ?? 'unknown',
        isError: block.is_error === true,
        summary: summarize(toolResultText(block.content)),
      });
    }
  }

  function handle(message: SDKMessage): void {
    switch (message.type) {
      case 'system':
        if (message.subtype === 'init') {
          state.sessionId = message.session_id;
          state.model = message.model;
        } else if (message.subtype === 'api_retry') {
          state.apiRetries += 1;
        }
        break;
      case 'assistant':
        if (message.parent_tool_use_id === null) onAssistant(message);
        break;
      case 'user':
        if (message.parent_tool_use_id === null) onUser(message);
        break;
      case 'result':
        state.result = message;
        state.sessionId ??= message.session_id;
        emit({ type: 'usage', usage: usageOfResult(message), aggregate: true });
        break;
      default:
        break;
    }
  }

  return { state, handle };
}
