/**
 * Turns the end of a failed Claude Code run (an error result, a thrown error, an abort or timeout)
 * into one short, secret-free `AgentError`, and decides when a failed resume may start over.
 */
import { AgentError } from '../../errors.js';
import type { SecretMasker } from '../../secrets.js';
import type { RunState } from './message-mapper.js';

/** Longest detail kept in an error message, characters. */
const MAX_DETAIL_CHARS = 300;

/** How the run ended, besides its messages. */
export interface RunEnding {
  /** What the SDK's iterator threw, if anything. */
  thrown?: unknown;
  /** The caller's signal fired. */
  aborted: boolean;
  /** The runner's own time limit fired (ms), if it did. */
  timedOutAfterMs?: number;
  maxTurns: number;
  /** Last lines Claude Code wrote on stderr (already masked). */
  stderrTail: string[];
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS)}…` : flat;
}

/** Strips the SDK's wrapper so the message reads once: "Claude Code returned an error result: X" → "X". */
function thrownText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Claude Code returned an error result:\s*/i, '');
}

/**
 * The failure of a run, or `undefined` when it succeeded (a `success` result that is not an error).
 * Messages: `agent run aborted`; `the agent did not finish within N s`; `the agent reached the turn
 * limit (N turns) before it finished`; `the agent (Claude Code) failed: <API error or reason>`;
 * `could not run Claude Code: <reason>`. Every message passes through `masker`.
 */
export function describeRunFailure(
  state: RunState,
  ending: RunEnding,
  masker: SecretMasker,
): AgentError | undefined {
  const make = (text: string) => new AgentError(masker.mask(oneLine(text)));
  if (ending.aborted) return make('agent run aborted');
  if (ending.timedOutAfterMs !== undefined) {
    return make(`the agent did not finish within ${Math.round(ending.timedOutAfterMs / 1000)} s`);
  }
  const result = state.result;
  if (result) {
    if (result.subtype === 'success' && !result.is_error) return undefined;
    if (result.subtype === 'error_max_turns') {
      const turns = `${ending.maxTurns} turn${ending.maxTurns === 1 ? '' : 's'}`;
      return make(`the agent reached the turn limit (${turns}) before it finished`);
    }
    if (result.subtype === 'error_max_budget_usd') return make('the agent reached its cost budget');
    const detail =
      result.subtype === 'success'
        ? result.result
        : result.errors.join('; ') || state.syntheticText || result.subtype;
    return make(`the agent (Claude Code) failed: ${detail || 'no reason given'}`);
  }
  if (ending.thrown !== undefined) {
    const tail = ending.stderrTail.join(' ').trim();
    const text = thrownText(ending.thrown);
    return make(`could not run Claude Code: ${text}${tail && !text.includes(tail) ? ` (${tail})` : ''}`);
  }
  return make('Claude Code ended without a result');
}

/**
 * True when a run started with `resume` failed in a way a fresh session may fix: Claude Code
 * reported an execution error (e.g. "No conversation found with session ID") or died before any
 * model output, and neither the caller nor the time limit stopped it. API errors do not qualify.
 */
export function isResumeFailure(state: RunState, ending: RunEnding): boolean {
  if (ending.aborted || ending.timedOutAfterMs !== undefined || state.sawModelOutput) return false;
  if (state.result) return state.result.subtype === 'error_during_execution';
  return ending.thrown !== undefined;
}
