import { describe, expect, it } from 'vitest';
import type { AgentRunOptions, AgentRunResult, AgentRunner } from '../agent/types.js';
import type { PullRequestInfo } from '../platforms/types.js';
import { toFileDiffs } from '../diff/diff.js';
import { createPartSession } from './part-session.js';
import { DEFAULT_LIMITS } from './limits.js';
import { estimateTokens, planParts } from './parts.js';
import { JOINED_SUMMARIES_HEADING, partLimitsFor, runParts } from './run-parts.js';
import { AgentError } from '../errors.js';

const pr: PullRequestInfo = {
  repoFullName: 'acme/widgets',
  number: 1,
  title: 't',
  body: '',
  state: 'open',
  authorUsername: 'a',
  headBranch: 'f',
  headSha: 'a'.repeat(40),
  baseBranch: 'main',
  baseSha: 'b'.repeat(40),
  headCloneUrl: 'https://example.com/acme/widgets.git',
  headRepoFullName: 'acme/widgets',
  isFork: false,
  htmlUrl: 'https://example.com/acme/widgets/pull/1',
};

/** A runner that answers each part with one finding on the first file of its prompt, slowly, counting runs in flight. */
function stubRunner(stats: { inFlight: number; max: number; prompts: string[] }): AgentRunner {
  return {
    async run(options: AgentRunOptions): Promise<AgentRunResult> {
      stats.inFlight++;
      stats.max = Math.max(stats.max, stats.inFlight);
      stats.prompts.push(options.prompt);
      await new Promise((resolve) => setTimeout(resolve, 20));
      stats.inFlight--;
      const path = /=== (\S+) \(/.exec(options.prompt)?.[1] ?? '';
      const usage = { inputTokens: 1000, outputTokens: 10 };
      options.onEvent?.({ type: 'usage', usage });
      const submitted = {
        summary: 'part done',
        comments: [
          { path, line: 1, body: 'same finding' },
          { path: 'shared.ts', line: 1, body: 'repeated in every part' },
        ],
      };
      return { text: '', submitted, sessionId: 's', model: 'm', usage, turns: 1, messages: [] };
    },
  };
}

describe('runParts', () => {
  it('runs one agent per part, at most max_parallel_runs at once, and merges their output', async () => {
    const files = toFileDiffs(
      Array.from({ length: 10 }, (_, i) => ({
        path: `dir${i}/file${i}.ts`,
        status: 'added' as const,
        additions: 300,
        deletions: 0,
        patch: `@@ -0,0 +1,300 @@\n${Array.from({ length: 300 }, (_, j) => `+const line${j} = ${'x'.repeat(40)};`).join('\n')}`,
      })),
    );
    const plan = planParts(files, { maxDiffTokens: 6000, maxParts: 20 });
    expect(plan.parts.length).toBeGreaterThan(3);
    const stats = { inFlight: 0, max: 0, prompts: [] as string[] };
    const runner = stubRunner(stats);
    const session = createPartSession({
      runner,
      base: { workspaceDir: '/tmp', systemPrompt: 's', tools: [], maxTurns: 3 },
      limits: { ...DEFAULT_LIMITS, maxParallelRuns: 2 },
      onEvent: () => {},
      onPhase: () => {},
    });
    const outcome = await runParts({
      context: session.context,
      parts: plan.parts,
      pr,
      existingComments: [],
      userPrompt: '',
      history: [],
      maxParallelRuns: 2,
    });
    expect(stats.prompts).toHaveLength(plan.parts.length);
    expect(stats.max).toBe(2);
    expect(stats.prompts[0]).toContain(`This is part 1 of ${plan.parts.length}`);
    expect(outcome.results.every((r) => r?.parsed?.ok)).toBe(true);
    expect(outcome.comments).toHaveLength(2 * plan.parts.length);
    // One heading over the parts' summaries, never "Part 2 of 5" (§18), until one summary replaces them.
    expect(outcome.summary.split('\n\n')).toEqual([
      JOINED_SUMMARIES_HEADING,
      ...plan.parts.map(() => 'part done'),
    ]);
    expect(outcome.summary).not.toMatch(/Part \d/);
    expect(session.meter.tokens().input).toBe(1000 * plan.parts.length);
  });

  it('keeps the other parts when one fails, and throws only when every part fails', async () => {
    const files = toFileDiffs(
      Array.from({ length: 3 }, (_, i) => ({
        path: `dir${i}/file${i}.ts`,
        status: 'added' as const,
        additions: 300,
        deletions: 0,
        patch: `@@ -0,0 +1,300 @@\n${Array.from({ length: 300 }, (_, j) => `+const line${j} = ${'x'.repeat(40)};`).join('\n')}`,
      })),
    );
    const plan = planParts(files, { maxDiffTokens: 6000, maxParts: 20 });
    expect(plan.parts.length).toBeGreaterThanOrEqual(3);
    const stats = { inFlight: 0, max: 0, prompts: [] as string[] };
    const ok = stubRunner(stats);
    const failing = (which: (prompt: string) => boolean): AgentRunner => ({
      async run(options) {
        if (which(options.prompt)) throw new AgentError('the provider answered 500');
        return ok.run(options);
      },
    });
    const go = (runner: AgentRunner) => {
      const session = createPartSession({
        runner,
        base: { workspaceDir: '/tmp', systemPrompt: 's', tools: [], maxTurns: 3 },
        limits: { ...DEFAULT_LIMITS, maxParallelRuns: 1 },
        onEvent: () => {},
        onPhase: () => {},
      });
      return runParts({
        context: session.context,
        parts: plan.parts,
        pr,
        existingComments: [],
        userPrompt: '',
        history: [],
        maxParallelRuns: 1,
      });
    };
    const outcome = await go(failing((prompt) => prompt.includes('This is part 2 of')));
    expect(outcome.results.map((r) => r?.parsed?.ok ?? 'failed')).toEqual(
      plan.parts.map((_, i) => (i === 1 ? 'failed' : true)),
    );
    expect(outcome.results[1]!.error).toBeInstanceOf(AgentError);
    expect(outcome.summary.split('\n\n')).toHaveLength(1 + plan.parts.length - 1);
    await expect(go(failing(() => true))).rejects.toThrow('the provider answered 500');
  });

  it('sizes parts so that the whole prompt, not only the diff, stays within review.max_diff_tokens', async () => {
    const files = toFileDiffs(
      Array.from({ length: 10 }, (_, i) => ({
        path: `dir${i}/file${i}.ts`,
        status: 'added' as const,
        additions: 300,
        deletions: 0,
        patch: `@@ -0,0 +1,300 @@\n${Array.from({ length: 300 }, (_, j) => `+const line${j} = ${'x'.repeat(40)};`).join('\n')}`,
      })),
    );
    const bigPr = { ...pr, body: 'A long description. '.repeat(400) };
    const systemPrompt = 'You review code. '.repeat(100);
    const limits = { maxDiffTokens: 8000, maxParts: 20 };
    const plan = planParts(
      files,
      partLimitsFor(limits, { systemPrompt, pr: bigPr, existingComments: [], userPrompt: '', history: [] }),
    );
    const stats = { inFlight: 0, max: 0, prompts: [] as string[] };
    const session = createPartSession({
      runner: stubRunner(stats),
      base: { workspaceDir: '/tmp', systemPrompt, tools: [], maxTurns: 3 },
      limits: DEFAULT_LIMITS,
      onEvent: () => {},
      onPhase: () => {},
    });
    await runParts({
      context: session.context,
      parts: plan.parts,
      pr: bigPr,
      existingComments: [],
      userPrompt: '',
      history: [],
      maxParallelRuns: 2,
    });
    const largest = Math.max(...stats.prompts.map((p) => estimateTokens(systemPrompt.length + p.length)));
    expect(largest + 1_500).toBeLessThanOrEqual(limits.maxDiffTokens);
    expect(largest).toBeGreaterThan(limits.maxDiffTokens / 2);
  });
});
