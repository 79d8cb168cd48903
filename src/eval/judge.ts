/**
 * One judge call (CONTRACT §23): the configured model (`eval.judge_model`) is shown the review's
 * findings and the golden comments, and answers which match through the `submit_matches` tool or
 * as JSON text. The answer is then made one-to-one in code (`enforceOneToOne`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { costOfCall, usageByKind, type ModelRates } from '../agent/pricing.js';
import type { TokenUsage } from '../agent/token-usage.js';
import type { AgentRunner } from '../agent/types.js';
import { AgentError } from '../errors.js';
import type { GoldenComment } from './dataset.js';
import { buildJudgePrompt, buildJudgeSystemPrompt, type JudgedFinding } from './judge-prompt.js';
import { enforceOneToOne, judgeMatchesOf, type Match } from './matching.js';

/** Model calls one judge run may make: the tool call, and one more if the model talks first. */
export const JUDGE_MAX_TURNS = 2;

/** What one judge call decided and cost. */
export interface JudgeResult {
  matches: Match[];
  /** Pairs of the answer dropped by the one-to-one rule (malformed, out of range, repeated). */
  dropped: number;
  usage: TokenUsage;
  /** USD; null when the judge model's price is unknown; 0 when no call was needed. */
  costUsd: number | null;
  /** False when there was nothing to match (no finding or no golden comment): no call was made. */
  called: boolean;
}

/** Input of `judgeMatches`. */
export interface JudgeInput {
  runner: AgentRunner;
  findings: readonly JudgedFinding[];
  golden: readonly GoldenComment[];
  /** The judge model's prices; null when unknown. */
  rates: ModelRates | null;
  signal?: AbortSignal;
}

/**
 * Asks the judge which findings match which golden comments. With no finding or no golden comment
 * nothing can match: no call is made.
 * @throws AgentError when the call fails or its answer holds no `{"matches": [...]}` object.
 */
export async function judgeMatches(input: JudgeInput): Promise<JudgeResult> {
  const { findings, golden } = input;
  if (findings.length === 0 || golden.length === 0) {
    return { matches: [], dropped: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, called: false };
  }
  // The judge reads no file; its runner still wants a workspace to confine tools to.
  const workspaceDir = await mkdtemp(path.join(tmpdir(), 'reviewbot-judge-'));
  try {
    const run = await input.runner.run({
      workspaceDir,
      systemPrompt: buildJudgeSystemPrompt(),
      prompt: buildJudgePrompt(findings, golden),
      history: [],
      tools: ['submit_matches'],
      maxTurns: JUDGE_MAX_TURNS,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const raw = judgeMatchesOf(run.submitted, run.text);
    if (raw === undefined) {
      throw new AgentError('the judge answered without a {"matches": [...]} object');
    }
    const checked = enforceOneToOne(raw, findings.length, golden.length);
    const costUsd =
      run.costUsd !== undefined && (run.usageAggregate || input.rates === null)
        ? run.costUsd
        : input.rates
          ? costOfCall(usageByKind(run.usage), input.rates)
          : null;
    return { ...checked, usage: run.usage, costUsd, called: true };
  } finally {
    await rm(workspaceDir, { recursive: true, force: true });
  }
}
