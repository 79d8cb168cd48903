import { describe, expect, it } from 'vitest';
import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { AgentError } from '../../errors.js';
import { SecretMasker } from '../../secrets.js';
import type { AgentEvent } from '../types.js';
import { createMessageTracker, displayToolName, usageOfResult, type RunState } from './message-mapper.js';
import { describeRunFailure, isResumeFailure, type RunEnding } from './run-failure.js';

const msg = (value: Record<string, unknown>) => value as unknown as SDKMessage;
const assistant = (
  id: string,
  content: unknown[],
  model = 'claude-sonnet-4-5',
  parent: string | null = null,
) =>
  msg({ type: 'assistant', parent_tool_use_id: parent, session_id: 's1', message: { id, model, content } });
const toolResult = (id: string, content: unknown, isError = false) =>
  msg({
    type: 'user',
    parent_tool_use_id: null,
    session_id: 's1',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
    },
  });
function result(fields: Record<string, unknown>): SDKResultMessage {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'final',
    session_id: 's1',
    total_cost_usd: 0.5,
    num_turns: 2,
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 1 },
    modelUsage: {},
    ...fields,
  } as unknown as SDKResultMessage;
}

describe('createMessageTracker', () => {
  it('maps a run to turn, text, tool_call, tool_result and usage events', () => {
    const events: AgentEvent[] = [];
    const tracker = createMessageTracker(7, (e) => events.push(e));
    const messages = [
      msg({ type: 'system', subtype: 'init', session_id: 's1', model: 'claude-opus-4-1' }),
      assistant('m1', [{ type: 'text', text: 'Looking.' }]),
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.ts' } }]),
      toolResult('t1', 'line one\nline two'),
      assistant('m2', [
        { type: 'tool_use', id: 't2', name: 'mcp__reviewbot__submit_review', input: { summary: 'x' } },
      ]),
      toolResult('t2', [{ type: 'text', text: 'rejected' }], true),
      assistant('sub', [{ type: 'text', text: 'subagent' }], 'claude-sonnet-4-5', 't9'),
      assistant('m3', [
        { type: 'text', text: '  ' },
        { type: 'text', text: 'Done.' },
      ]),
      msg({ type: 'system', subtype: 'api_retry', attempt: 1 }),
      result({
        modelUsage: {
          a: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 5, cacheCreationInputTokens: 3 },
        },
      }),
    ];
    for (const m of messages) tracker.handle(m);
    expect(events).toEqual([
      { type: 'turn', turn: 1, maxTurns: 7 },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_call', tool: 'Read', input: { file_path: 'a.ts' } },
      { type: 'tool_result', tool: 'Read', isError: false, summary: 'line one (+1 more lines)' },
      { type: 'turn', turn: 2, maxTurns: 7 },
      { type: 'tool_call', tool: 'submit_review', input: { summary: 'x' } },
      { type: 'tool_result', tool: 'submit_review', isError: true, summary: 'rejected' },
      { type: 'turn', turn: 3, maxTurns: 7 },
      { type: 'text', text: 'Done.' },
      {
        type: 'usage',
        usage: { inputTokens: 108, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 3 },
        aggregate: true,
      },
    ]);
    expect(tracker.state).toMatchObject({
      sessionId: 's1',
      model: 'claude-opus-4-1',
      turns: 3,
      sawModelOutput: true,
      apiRetries: 1,
    });
  });

  it('does not count Claude Code’s synthetic API-error message as model output', () => {
    const tracker = createMessageTracker(3, () => {});
    tracker.handle(assistant('e1', [{ type: 'text', text: 'API Error: 500 boom' }], '<synthetic>'));
    expect(tracker.state).toMatchObject({
      turns: 0,
      sawModelOutput: false,
      syntheticText: 'API Error: 500 boom',
    });
  });
});

it.each([
  ['mcp__reviewbot__submit_review', 'submit_review'],
  ['mcp__my_server__do_it', 'do_it'],
  ['Read', 'Read'],
])('displayToolName(%s) = %s', (name, expected) => {
  expect(displayToolName(name)).toBe(expected);
});

it('usageOfResult falls back to the main-loop usage, cache tokens counted as input', () => {
  expect(usageOfResult(result({}))).toEqual({
    inputTokens: 13,
    outputTokens: 5,
    cacheReadTokens: 2,
    cacheWriteTokens: 1,
  });
});

describe('describeRunFailure and isResumeFailure', () => {
  const masker = new SecretMasker(['sk-leaky-secret-value']);
  const ending = (fields: Partial<RunEnding> = {}): RunEnding => ({
    aborted: false,
    maxTurns: 4,
    stderrTail: [],
    ...fields,
  });
  const state = (fields: Partial<RunState> = {}): RunState => ({
    turns: 0,
    sawModelOutput: false,
    apiRetries: 0,
    ...fields,
  });

  it.each([
    ['success', state({ result: result({}) }), ending(), undefined],
    ['abort', state(), ending({ aborted: true }), 'agent run aborted'],
    ['timeout', state(), ending({ timedOutAfterMs: 90_000 }), 'the agent did not finish within 90 s'],
    [
      'turn limit',
      state({ result: result({ subtype: 'error_max_turns', is_error: true, errors: [] }) }),
      ending(),
      'the agent reached the turn limit (4 turns) before it finished',
    ],
    [
      'API error',
      state({ result: result({ is_error: true, result: 'API Error: 401 key sk-leaky-secret-value' }) }),
      ending(),
      'the agent (Claude Code) failed: API Error: 401 key ***',
    ],
    [
      'execution error',
      state({
        result: result({
          subtype: 'error_during_execution',
          is_error: true,
          errors: ['No conversation found'],
        }),
      }),
      ending(),
      'the agent (Claude Code) failed: No conversation found',
    ],
    [
      'process failure',
      state(),
      ending({ thrown: new Error('Claude Code process exited with code 1'), stderrTail: ['bad flag'] }),
      'could not run Claude Code: Claude Code process exited with code 1 (bad flag)',
    ],
    ['no result at all', state(), ending(), 'Claude Code ended without a result'],
  ])('%s', (_name, s, e, expected) => {
    const error = describeRunFailure(s, e, masker);
    if (expected === undefined) expect(error).toBeUndefined();
    else {
      expect(error).toBeInstanceOf(AgentError);
      expect(error?.message).toBe(expected);
    }
  });

  it.each([
    [
      'transcript missing',
      state({ result: result({ subtype: 'error_during_execution', is_error: true, errors: ['x'] }) }),
      ending(),
      true,
    ],
    ['process died before output', state(), ending({ thrown: new Error('exit 1') }), true],
    ['API error', state({ result: result({ is_error: true, result: 'API Error: 500' }) }), ending(), false],
    ['failed after model output', state({ sawModelOutput: true }), ending({ thrown: new Error('x') }), false],
    ['aborted', state(), ending({ aborted: true, thrown: new Error('x') }), false],
    ['timed out', state(), ending({ timedOutAfterMs: 5, thrown: new Error('x') }), false],
  ])('isResumeFailure: %s → %s', (_name, s, e, expected) => {
    expect(isResumeFailure(s, e)).toBe(expected);
  });
});
