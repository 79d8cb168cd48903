/**
 * Reads the AI SDK's `fullStream` of one agent run: forwards progress as `AgentEvent`s, counts
 * turns, sums token usage over steps and keeps what the runner returns (final text, last finish
 * reason, the first error).
 */
import type { FinishReason, TextStreamPart, ToolSet } from 'ai';
import type { TokenUsage } from './token-usage.js';
import type { AgentEvent } from './types.js';

/** Longest `tool_result` summary, characters. */
const MAX_SUMMARY_CHARS = 160;

/** What one pass over the stream produced. */
export interface StreamOutcome {
  turns: number;
  usage: TokenUsage;
  /** Text of the last finished step (the model's final answer). */
  finalText: string;
  /** Finish reason of the last finished step; `tool-calls` means the model wanted to go on. */
  lastFinishReason: FinishReason | undefined;
  /** The first `error` part (provider or network failure), if any. */
  error: unknown;
  aborted: boolean;
  /** Call warnings the SDK reported at step starts (unsupported settings and the like), as JSON. */
  warnings: string[];
}

/**
 * Consumes `stream`, calling `emit` for each progress event: `turn` at each step start, `text` for
 * each finished text block, `tool_call`, `tool_result` (with `isError` and a one-line summary) and,
 * after each step, `usage` with the totals so far.
 */
export async function consumeAgentStream<TOOLS extends ToolSet>(
  stream: AsyncIterable<TextStreamPart<TOOLS>>,
  maxTurns: number,
  emit: (event: AgentEvent) => void,
): Promise<StreamOutcome> {
  const outcome: StreamOutcome = {
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    finalText: '',
    lastFinishReason: undefined,
    error: undefined,
    aborted: false,
    warnings: [],
  };
  let stepText = '';
  let blockText = '';
  for await (const part of stream) {
    switch (part.type) {
      case 'start-step':
        outcome.turns += 1;
        stepText = '';
        for (const warning of part.warnings) outcome.warnings.push(JSON.stringify(warning));
        emit({ type: 'turn', turn: outcome.turns, maxTurns });
        break;
      case 'text-start':
        blockText = '';
        break;
      case 'text-delta':
        blockText += part.text;
        stepText += part.text;
        break;
      case 'text-end':
        if (blockText.trim() !== '') emit({ type: 'text', text: blockText });
        blockText = '';
        break;
      case 'tool-call':
        emit({ type: 'tool_call', tool: part.toolName, input: part.input });
        break;
      case 'tool-result':
        if (part.preliminary) break;
        emit({ type: 'tool_result', tool: part.toolName, isError: false, summary: summarize(part.output) });
        break;
      case 'tool-error':
        emit({ type: 'tool_result', tool: part.toolName, isError: true, summary: summarize(part.error) });
        break;
      case 'finish-step':
        outcome.usage.inputTokens += part.usage.inputTokens ?? 0;
        outcome.usage.outputTokens += part.usage.outputTokens ?? 0;
        addCacheUsage(outcome.usage, part.usage.inputTokenDetails);
        outcome.finalText = stepText;
        outcome.lastFinishReason = part.finishReason;
        emit({ type: 'usage', usage: { ...outcome.usage } });
        break;
      case 'error':
        outcome.error ??= part.error;
        break;
      case 'abort':
        outcome.aborted = true;
        break;
      default:
        break;
    }
  }
  return outcome;
}

/** Adds a step's cache reads and writes to `usage`; the fields appear once a provider reports any. */
function addCacheUsage(
  usage: TokenUsage,
  details: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined } | undefined,
): void {
  const read = details?.cacheReadTokens ?? 0;
  const write = details?.cacheWriteTokens ?? 0;
  if (read > 0 || usage.cacheReadTokens !== undefined)
    usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + read;
  if (write > 0 || usage.cacheWriteTokens !== undefined)
    usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + write;
}

/** One line describing a tool output or error: its first non-empty line, cut, plus the line count. */
export function summarize(value: unknown): string {
  const text =
    typeof value === 'string'
      ? value
      : value instanceof Error
        ? value.message
        : value === undefined
          ? ''
          : JSON.stringify(value);
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '').trim();
  const cut = first.length > MAX_SUMMARY_CHARS ? `${first.slice(0, MAX_SUMMARY_CHARS)}…` : first;
  return lines.length > 1 ? `${cut} (+${lines.length - 1} more lines)` : cut;
}
