/**
 * One verification run (CONTRACT §22): an agent run with `Read`, `Glob`, `Grep`, `Bash` and
 * `submit_verification` in a disposable overlay of the pull request's working tree, sandboxed with no
 * network, under a hard wall-clock limit. Never unsandboxed: without bubblewrap the finding is
 * skipped with the reason.
 */
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import type { TokenUsage } from '../../agent/token-usage.js';
import type { AgentRunner, AgentRunResult, ModelCallEstimate, ToolName } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import type { SecretMasker } from '../../secrets.js';
import type { Finding } from '../types.js';
import { readAnswer } from './answer.js';
import { openDisposableTree, type DisposableTree } from './disposable-tree.js';
import { captureProbeFiles, type Probe } from './probe.js';
import { rerunProbe } from './rerun-probe.js';
import { sandboxSkipReason } from './sandbox-reason.js';

export { sandboxSkipReason } from './sandbox-reason.js';
import { buildVerificationPrompt, buildVerificationReask, buildVerificationSystemPrompt } from './prompt.js';
import { findingSeverity } from './severity.js';
import type { Verification } from './types.js';

/** Tools of a verification run. */
export const VERIFICATION_TOOLS: readonly ToolName[] = [
  'Read',
  'Glob',
  'Grep',
  'Bash',
  'submit_verification',
];
/** Model calls one verification run may make. */
export const VERIFICATION_MAX_TURNS = 20;
/** How long a run may take to settle after its deadline aborted it, ms, before the stage moves on. */
export const ABORT_GRACE_MS = 5_000;

/** Input of `runVerification`. */
export interface VerificationRunInput {
  finding: Finding;
  /** The pull request's workspace (`pr-<N>`); never written. */
  workspace: string;
  /** The host's tool sandbox (its network allowlist is ignored: a verification has no network). */
  sandbox: ToolSandbox;
  runner: AgentRunner;
  /** Hard wall-clock limit of the run, ms (`review.verify_timeout_seconds` × 1000). */
  timeoutMs: number;
  /** Masks secrets in the command and output kept from the run. */
  masker: SecretMasker;
  baseSha?: string;
  /** Where the disposable tree's upper layer is made (default the OS temporary directory). */
  scratchDir?: string;
  maxTurns?: number;
  signal?: AbortSignal;
  /** The review's cost cap (§15), asked before each model call. */
  beforeModelCall?: (call: ModelCallEstimate) => boolean;
  logger?: Logger;
}

/** Output of `runVerification`: the outcome and what it cost. */
export interface VerificationRunResult {
  verification: Verification;
  usage: TokenUsage;
  costUsd?: number;
  turns: number;
}

const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0 };

function outcome(
  status: Verification['status'],
  fields: Partial<Verification> & { durationMs: number },
): Verification {
  return { status, command: '', output: '', explanation: '', ...fields };
}

/**
 * Verifies one finding. Never throws for a failed run: a timeout, an agent error or an unreadable
 * answer (after one re-ask) is `inconclusive` with a reason; a host without sandbox is `skipped`.
 * On the deadline the run is aborted and every command running in its disposable tree is killed
 * (with its namespaces, whichever runner started it); the tree is removed once the run settled (or
 * `ABORT_GRACE_MS` later), after killing anything that still runs in it — no sandboxed process of
 * the run outlives the call.
 */
export async function runVerification(input: VerificationRunInput): Promise<VerificationRunResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const skip = sandboxSkipReason(input.sandbox);
  if (skip !== undefined || input.sandbox.status.kind !== 'bwrap')
    return { verification: outcome('skipped', { reason: skip, durationMs: 0 }), usage: ZERO, turns: 0 };
  let tree: DisposableTree;
  try {
    tree = await openDisposableTree({
      workspace: input.workspace,
      sandbox: input.sandbox.status,
      ...(input.scratchDir ? { parentDir: input.scratchDir } : {}),
    });
  } catch (error) {
    const reason = input.masker.mask(error instanceof Error ? error.message : String(error));
    return { verification: outcome('skipped', { reason, durationMs: elapsed() }), usage: ZERO, turns: 0 };
  }
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(input.signal?.reason);
  input.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('verification timed out'));
    // Whatever the runner does now, nothing runs in the copy any more (close waits for it).
    tree.stop().catch(() => undefined);
  }, input.timeoutMs);
  const meter = { usage: ZERO, turns: 0, costUsd: undefined as number | undefined };
  try {
    const verification = await converse(input, tree, controller.signal, meter).catch((error: unknown) => {
      const reason = timedOut
        ? `timed out after ${Math.round(input.timeoutMs / 1000)} s`
        : input.masker.mask(error instanceof Error ? error.message : String(error));
      return outcome('inconclusive', { reason, durationMs: 0 });
    });
    if (verification.status === 'confirmed' && !timedOut) {
      const probe = await keptProbe(input, tree, verification.command, input.timeoutMs - elapsed());
      if (probe) verification.probe = probe;
    }
    return {
      verification: { ...verification, durationMs: elapsed() },
      usage: meter.usage,
      ...(meter.costUsd === undefined ? {} : { costUsd: meter.costUsd }),
      turns: meter.turns,
    };
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener('abort', onOuterAbort);
    await tree.close().catch((error: unknown) => {
      const reason = input.masker.mask(error instanceof Error ? error.message : String(error));
      input.logger?.error({ reason }, 'could not stop every command of a verification run');
    });
  }
}

/** Shortest time a confirmed probe gets to show it fails on the head, ms. */
const MIN_BASELINE_MS = 5_000;

/**
 * The probe of a confirmed finding, kept for a re-run after `apply` (§24): the command and the files
 * the run created (the test or script it wrote; secrets masked), read once nothing runs in the copy
 * any more (no process can swap a file for a link). Kept only when it fails on the pull request's
 * head as it is — run once more in a fresh copy, within what is left of the run's time (at least
 * `MIN_BASELINE_MS`) — so that "now passes" after a fix means the fix made it pass. Undefined when
 * the copy could not be stopped, or the probe passes, times out or cannot run on the head.
 */
async function keptProbe(
  input: VerificationRunInput,
  tree: DisposableTree,
  command: string,
  remainingMs: number,
): Promise<Probe | undefined> {
  try {
    await tree.stop();
  } catch (error) {
    input.logger?.warn({ err: error }, 'verification copy did not stop; its probe is not kept');
    return undefined;
  }
  const files = await captureProbeFiles(tree.upperDir, tree.workspace).catch(() => []);
  const probe: Probe = {
    command,
    files: files.map((f) => ({ path: f.path, content: input.masker.mask(f.content) })),
  };
  const baseline = await rerunProbe({
    probe,
    workspace: input.workspace,
    sandbox: input.sandbox,
    timeoutMs: Math.max(MIN_BASELINE_MS, remainingMs),
    masker: input.masker,
    ...(input.scratchDir ? { scratchDir: input.scratchDir } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  }).catch(() => undefined);
  if (baseline?.status === 'fails') return probe;
  input.logger?.info(
    { status: baseline?.status ?? 'error' },
    'the confirmed probe does not fail on the head as it is; it is not kept for apply',
  );
  return undefined;
}

interface Meter {
  usage: TokenUsage;
  turns: number;
  costUsd: number | undefined;
}

/** The run, and one re-ask when its answer cannot be read. Rejects when a run fails or is aborted. */
async function converse(
  input: VerificationRunInput,
  tree: DisposableTree,
  signal: AbortSignal,
  meter: Meter,
): Promise<Verification> {
  const systemPrompt = buildVerificationSystemPrompt();
  const base = {
    workspaceDir: tree.workspace,
    systemPrompt,
    tools: [...VERIFICATION_TOOLS],
    maxTurns: input.maxTurns ?? VERIFICATION_MAX_TURNS,
    sandbox: tree.sandbox,
    signal,
    ...(input.beforeModelCall ? { beforeModelCall: input.beforeModelCall } : {}),
  };
  const prompt = buildVerificationPrompt({
    finding: input.finding,
    severity: findingSeverity(input.finding),
    ...(input.baseSha ? { baseSha: input.baseSha } : {}),
  });
  let result = await settle(
    input.runner.run({ ...base, prompt, onEvent: usageTracker(meter) }),
    signal,
    meter,
  );
  let answer = readAnswer(result);
  if ('error' in answer) {
    result = await settle(
      input.runner.run({
        ...base,
        prompt: buildVerificationReask(answer.error),
        history: result.messages,
        onEvent: usageTracker(meter),
      }),
      signal,
      meter,
    );
    answer = readAnswer(result);
  }
  if ('error' in answer)
    return outcome('inconclusive', { reason: `unreadable answer: ${answer.error}`, durationMs: 0 });
  return {
    status: answer.verdict,
    command: input.masker.mask(answer.command),
    output: input.masker.mask(answer.output),
    explanation: input.masker.mask(answer.explanation),
    durationMs: 0,
  };
}

/** Keeps the running usage of the current run (so a run cut off by the deadline still counts). */
function usageTracker(meter: Meter) {
  const before = { ...meter.usage };
  return (event: { type: string; usage?: TokenUsage }) => {
    if (event.type === 'usage' && event.usage) meter.usage = addUsage(before, event.usage);
  };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  const read = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  const write = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) sum.cacheReadTokens = read;
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) sum.cacheWriteTokens = write;
  return sum;
}

/**
 * Awaits a run; once `signal` aborted, waits at most `ABORT_GRACE_MS` more. Adds the run's usage to
 * `meter` (its own figures when it finished).
 */
async function settle(
  run: Promise<AgentRunResult>,
  signal: AbortSignal,
  meter: Meter,
): Promise<AgentRunResult> {
  const before = { ...meter.usage };
  let onAbort: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    onAbort = () =>
      setTimeout(() => reject(new Error('the run did not stop after its deadline')), ABORT_GRACE_MS).unref();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([run, late]);
    meter.usage = addUsage(before, result.usage);
    meter.turns += result.turns;
    if (result.costUsd !== undefined) meter.costUsd = (meter.costUsd ?? 0) + result.costUsd;
    return result;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
