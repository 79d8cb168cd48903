/**
 * One part of a review (CONTRACT §15): one agent run over one part's annotated diff, re-asked at
 * most twice when its output cannot be parsed (CONTRACT §7). Usage goes to the review's meter as
 * it happens; every model call is admitted by the meter before it is sent (the hard cost cap); a
 * run stopped by the cap ends the part cleanly with what it has.
 */
import type {
  AgentEvent,
  AgentRunOptions,
  AgentRunResult,
  AgentRunner,
  ConversationMessage,
} from '../agent/types.js';
import { MAX_OUTPUT_TOKENS } from '../agent/call-limits.js';
import { AgentError } from '../errors.js';
import { parseReviewOutput, type ParseOutcome } from './parse-output.js';
import { buildReaskPrompt } from './prompt.js';
import type { UsageMeter } from './usage-meter.js';

/** Maximum re-asks when the model's output cannot be parsed (CONTRACT §7). */
export const MAX_REASKS = 2;

/** What every part of one review shares. */
export interface PartRunContext {
  runner: AgentRunner;
  /** Run options common to every part (workspace, system prompt, tools, turn limit). */
  base: Pick<AgentRunOptions, 'workspaceDir' | 'systemPrompt' | 'tools' | 'maxTurns'>;
  /** Aborted when the review is cancelled or its cost cap is reached. */
  signal: AbortSignal;
  /** True when `signal` was aborted by the cost cap (the part then ends without an error). */
  cappedNow: () => boolean;
  meter: UsageMeter;
  /** Progress of the agent. */
  onEvent: (event: AgentEvent) => void;
  /** A phase message (re-asks). */
  onPhase: (message: string) => void;
  /** Source of run ids for the meter, unique within the review. */
  nextRunId: () => number;
}

/** Input of one part. */
export interface PartInput {
  prompt: string;
  history: ConversationMessage[];
  resumeSessionId?: string | undefined;
  /** `part 2/5`, for messages; empty for a single-part review. */
  label: string;
}

/** What one part produced. */
export interface PartResult {
  /** The parsed review, or the parse failure of the last attempt; undefined when no run finished. */
  parsed?: ParseOutcome;
  /** The last finished run. */
  run?: AgentRunResult;
  /** Agent runs started (first run plus re-asks). */
  runs: number;
  turns: number;
  toolCalls: number;
  /** True when the cost cap stopped this part. */
  stopped: boolean;
  /** The error that ended this part's run (its files are then not reviewed); the review goes on. */
  error?: unknown;
}

/**
 * Runs one part: the review prompt, then re-asks while the output does not parse. A run that fails
 * ends the part with `error` set (the other parts go on).
 * @throws AgentError when the review was cancelled from outside (its signal aborted, not by the cap).
 */
export async function runReviewPart(ctx: PartRunContext, input: PartInput): Promise<PartResult> {
  const result: PartResult = { runs: 0, turns: 0, toolCalls: 0, stopped: false };
  const once = async (prompt: string, history: ConversationMessage[], resume?: string): Promise<boolean> => {
    if (ctx.signal.aborted) {
      result.stopped = ctx.cappedNow();
      if (!result.stopped) throw new AgentError('agent run aborted');
      return false;
    }
    const runId = ctx.nextRunId();
    // The cost cap, before the run's first call (runners that cannot be asked per call are asked here only).
    const firstCall = {
      promptChars:
        ctx.base.systemPrompt.length + prompt.length + history.reduce((n, m) => n + m.content.length, 0),
      maxOutputTokens: MAX_OUTPUT_TOKENS,
    };
    if (!ctx.meter.admit(runId, firstCall)) {
      result.stopped = true;
      return false;
    }
    result.runs++;
    let turns = 0;
    const onEvent = (event: AgentEvent): void => {
      if (event.type === 'usage') ctx.meter.update(runId, event.usage, event.aggregate === true);
      else if (event.type === 'tool_call') result.toolCalls++;
      else if (event.type === 'turn') turns = event.turn;
      ctx.onEvent(event);
    };
    try {
      const run = await ctx.runner.run({
        ...ctx.base,
        prompt,
        history,
        ...(resume ? { resumeSessionId: resume } : {}),
        onEvent,
        signal: ctx.signal,
        beforeModelCall: (call) => ctx.meter.admit(runId, call),
      });
      ctx.meter.finish(runId, run);
      result.turns += run.turns;
      result.run = run;
      result.parsed = parseReviewOutput(run.submitted ?? run.text);
      return true;
    } catch (error) {
      result.turns += turns;
      ctx.meter.abandon(runId, ctx.signal.aborted);
      if (ctx.cappedNow()) {
        result.stopped = true;
        return false;
      }
      // Cancelled from outside: the whole review stops. Any other failure ends this part only.
      if (ctx.signal.aborted) throw error;
      result.error = error;
      return false;
    }
  };

  if (!(await once(input.prompt, input.history, input.resumeSessionId))) return result;
  for (let attempt = 1; result.parsed && !result.parsed.ok && attempt <= MAX_REASKS; attempt++) {
    const where = input.label ? ` (${input.label})` : '';
    ctx.onPhase(
      `the review${where} could not be parsed (${result.parsed.error}); asking again (${attempt}/${MAX_REASKS})`,
    );
    const previous = result.run!;
    if (!(await once(buildReaskPrompt(result.parsed.error), previous.messages, previous.sessionId))) break;
  }
  return result;
}
