import { describe, expect, it } from 'vitest';
import type { AgentRunOptions, AgentRunResult, AgentRunner } from '../agent/types.js';
import { AgentError } from '../errors.js';
import { judgeMatches } from './judge.js';

const RATES = {
  input: { base: 3, tiers: [] },
  output: { base: 15, tiers: [] },
  cacheWrite: { base: 3, tiers: [] },
  cacheRead: { base: 3, tiers: [] },
};

/** A runner that answers once with `answer` and records what it was asked. */
function scriptedRunner(answer: Partial<AgentRunResult>): AgentRunner & { calls: AgentRunOptions[] } {
  const calls: AgentRunOptions[] = [];
  return {
    calls,
    async run(options) {
      calls.push(options);
      return {
        text: '',
        sessionId: 's',
        model: 'judge-model',
        usage: { inputTokens: 1000, outputTokens: 100 },
        turns: 1,
        messages: [],
        ...answer,
      };
    },
  };
}

const findings = [
  { path: 'src/a.ts', line: 3, body: 'Off by one in the loop bound.' },
  { path: 'src/b.ts', line: 9, body: 'Style: rename x.' },
];
const golden = [{ path: 'src/a.ts', line: 4, comment: 'The loop reads one element past the end.' }];

describe('judgeMatches', () => {
  it('labels each item with its path, line and text, offers submit_matches and prices the call', async () => {
    const runner = scriptedRunner({
      submitted: {
        matches: [
          { finding: 0, golden: 0 },
          { finding: 1, golden: 0 },
          { finding: 7, golden: 0 },
        ],
      },
    });
    const result = await judgeMatches({ runner, findings, golden, rates: RATES });
    expect(result.matches).toEqual([{ finding: 0, golden: 0 }]);
    expect(result.dropped).toBe(2);
    expect(result.costUsd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 10);
    const call = runner.calls[0]!;
    expect(call.tools).toEqual(['submit_matches']);
    expect(call.prompt).toContain('[F0] src/a.ts:3 Off by one in the loop bound.');
    expect(call.prompt).toContain('[F1] src/b.ts:9 Style: rename x.');
    expect(call.prompt).toContain('[G0] src/a.ts:4 The loop reads one element past the end.');
    expect(call.prompt).toMatch(/<untrusted-data-[0-9a-f]+ kind="golden-comments">/);
  });

  it('reads a JSON text answer when the tool was not called', async () => {
    const runner = scriptedRunner({ text: 'Here: {"matches": [{"finding": 1, "golden": 0}]}' });
    const result = await judgeMatches({ runner, findings, golden, rates: null });
    expect(result.matches).toEqual([{ finding: 1, golden: 0 }]);
    expect(result.costUsd).toBeNull();
  });

  it('fails on a garbage answer', async () => {
    const runner = scriptedRunner({ text: 'I cannot decide. F0 looks close to G0 maybe?' });
    await expect(judgeMatches({ runner, findings, golden, rates: RATES })).rejects.toBeInstanceOf(AgentError);
  });

  it('makes no call for an empty review', async () => {
    const runner = scriptedRunner({});
    const result = await judgeMatches({ runner, findings: [], golden, rates: RATES });
    expect(result).toMatchObject({ matches: [], called: false, costUsd: 0 });
    expect(runner.calls).toHaveLength(0);
  });
});
