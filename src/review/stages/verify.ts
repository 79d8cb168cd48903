/**
 * The verify stage of a review (CONTRACT §22): with `review.verify: on`, the findings the review
 * would post inline are tried by running code before anything is posted (`verifyFindings`: one run
 * per selected finding, in a disposable copy of the pull request's tree, sandboxed with no network,
 * under `review.verify_timeout_seconds`). Refuted findings leave the review — with their hidden
 * markers — and are listed apart; the others carry their `verification`. Every run goes through the
 * review's usage meter: its calls are admitted under `review.max_cost_usd` and its tokens and cost
 * are the review's. Without a sandbox nothing runs (never unsandboxed); once the cost cap is
 * reached nothing runs either; the findings are then posted as not verified.
 */
import { MAX_OUTPUT_TOKENS } from '../../agent/call-limits.js';
import type { ToolSandbox } from '../../agent/sandbox/types.js';
import type { AgentEvent, AgentRunner } from '../../agent/types.js';
import type { RawConfig } from '../../config/schema.js';
import { AgentError } from '../../errors.js';
import { SecretMasker } from '../../secrets.js';
import type { ReviewLimits } from '../limits.js';
import type { PartSession } from '../part-session.js';
import type { Finding, Verification, VerificationReceipt } from '../types.js';
import { parseFindingMarker, renderFindingMarker } from '../memory/markers.js';
import { encodeProbe } from '../verify/probe.js';
import { selectForVerification, verifyFindings } from '../verify/verify-findings.js';
import type { SettledFindings } from './settle-memory.js';
import type { ReviewContext, ReviewVerifySettings } from './types.js';

export type { ReviewVerifySettings } from './types.js';

/** The verification settings of a loaded configuration. */
export function verifySettingsOf(config: Pick<RawConfig, 'review'>): ReviewVerifySettings {
  const { verify, verify_min_severity, verify_max, verify_timeout_seconds } = config.review;
  return { verify, verify_min_severity, verify_max, verify_timeout_seconds };
}

/** Why nothing ran when the review's cost cap was already reached. */
export const CAP_REACHED_REASON = 'the review reached its cost cap (review.max_cost_usd)';

/** The sandbox of a review given none: nothing runs, and the receipt says why. */
const NO_SANDBOX: ToolSandbox = {
  status: { kind: 'unavailable', reason: 'none was set up for this review' },
  networkHosts: [],
};

/** Input of `verifyStage`. */
export interface VerifyStageInput {
  /** The review's run session (usage meter, cost cap, abort signal). */
  session: PartSession;
  settled: SettledFindings;
  /** The pull request's working tree (the workspace, held under its lock; never written). */
  tree: string;
  /** The pull request's base commit. */
  baseSha: string;
  limits: ReviewLimits;
}

/** What the verify stage left to post, and what it did. */
export interface VerifiedReview {
  /** `settled` without the refuted findings and their markers; verified findings carry `verification`. */
  settled: SettledFindings;
  /** Findings running code refuted (with their `verification`): not posted, not in the verdict. */
  refuted: Finding[];
  /** `receipt.verification`; undefined when `review.verify` is off. */
  receipt?: VerificationReceipt;
  /** Agent runs the stage started, their model calls and tool calls (for the receipt). */
  runs: number;
  turns: number;
  toolCalls: number;
}

interface Counters {
  runs: number;
  turns: number;
  toolCalls: number;
}

/**
 * `runner` with every run metered like a part's (CONTRACT §15): a run id of the review, the first
 * call admitted before the run starts (runners that cannot be asked per call are asked there only),
 * each later call admitted by the meter, usage reported to it as it arrives.
 */
function meteredRunner(
  session: PartSession,
  counters: Counters,
  emit: (event: AgentEvent) => void,
): AgentRunner {
  const { meter, nextRunId } = session.context;
  const runner = session.context.runner;
  return {
    async run(options) {
      const runId = nextRunId();
      const history = options.history ?? [];
      const firstCall = {
        promptChars:
          options.systemPrompt.length +
          options.prompt.length +
          history.reduce((n, m) => n + m.content.length, 0),
        maxOutputTokens: MAX_OUTPUT_TOKENS,
      };
      if (!meter.admit(runId, firstCall)) throw new AgentError(CAP_REACHED_REASON);
      counters.runs++;
      let turns = 0;
      const onEvent = (event: AgentEvent): void => {
        if (event.type === 'usage') meter.update(runId, event.usage, event.aggregate === true);
        else if (event.type === 'tool_call') counters.toolCalls++;
        else if (event.type === 'turn') turns = event.turn;
        options.onEvent?.(event);
        emit(event);
      };
      const asked = options.beforeModelCall;
      try {
        const result = await runner.run({
          ...options,
          onEvent,
          beforeModelCall: (call) => meter.admit(runId, call) && (asked?.(call) ?? true),
        });
        meter.finish(runId, result);
        counters.turns += result.turns;
        return result;
      } catch (error) {
        counters.turns += turns;
        meter.abandon(runId, options.signal?.aborted === true);
        throw error;
      }
    },
  };
}

/**
 * `marker` (a finding marker's text, or '') carrying the probe of a confirmed `verification`, so
 * that applying the finding can run it again (§24); unchanged when there is none or it cannot fit.
 */
export function markerWithProbe(marker: string, verification: Verification): string {
  if (verification.status !== 'confirmed' || !verification.probe || marker === '') return marker;
  const parsed = parseFindingMarker(marker);
  const probe = encodeProbe(verification.probe);
  return parsed && probe ? renderFindingMarker({ ...parsed, probe }) : marker;
}

/** Every selected finding skipped with `reason`: what a stage that runs nothing reports. */
function skipAll(findings: Finding[], indexes: number[], reason: string) {
  const outcomes: Array<Verification | undefined> = findings.map(() => undefined);
  for (const index of indexes)
    outcomes[index] = { status: 'skipped', command: '', output: '', explanation: '', reason, durationMs: 0 };
  const receipt: VerificationReceipt = {
    confirmed: 0,
    refuted: 0,
    inconclusive: 0,
    skipped: indexes.length,
    durationMs: 0,
    ...(indexes.length > 0 ? { skippedReason: reason } : {}),
  };
  return { outcomes, receipt };
}

/**
 * Verifies the inline findings the review would post. Never throws for a failed run (it is
 * inconclusive).
 * @throws AgentError when the review was cancelled from outside.
 */
export async function verifyStage(ctx: ReviewContext, stage: VerifyStageInput): Promise<VerifiedReview> {
  const { input } = ctx;
  const { settled, session } = stage;
  const counters: Counters = { runs: 0, turns: 0, toolCalls: 0 };
  const settings = input.verify;
  if (settings?.verify !== 'on') return { settled, refuted: [], ...counters };
  const cancelled = (): boolean => input.signal?.aborted === true;
  if (cancelled()) throw new AgentError('agent run aborted');
  const config = { ...settings, max_parallel_runs: stage.limits.maxParallelRuns };
  const { kept } = settled;
  const selected = selectForVerification(kept, config.verify_min_severity, config.verify_max);
  let verified: { outcomes: Array<Verification | undefined>; receipt: VerificationReceipt };
  if (session.meter.capped) {
    verified = skipAll(kept, selected, CAP_REACHED_REASON);
  } else {
    if (selected.length > 0) ctx.phase('verify', `verifying ${selected.length} finding(s) by running code`);
    verified = await verifyFindings({
      findings: kept,
      tree: stage.tree,
      config,
      runner: meteredRunner(session, counters, ctx.emit),
      sandbox: input.sandbox ?? NO_SANDBOX,
      masker: input.masker ?? new SecretMasker(),
      baseSha: stage.baseSha,
      signal: session.context.signal,
      logger: ctx.logger,
    });
    if (cancelled()) throw new AgentError('agent run aborted');
  }
  const { outcomes, receipt } = verified;
  const next: SettledFindings = { ...settled, kept: [], inlineMarkers: [] };
  const refuted: Finding[] = [];
  for (const [i, finding] of kept.entries()) {
    const verification = outcomes[i];
    if (verification === undefined) {
      next.kept.push(finding);
      next.inlineMarkers.push(settled.inlineMarkers[i] ?? '');
    } else if (verification.status === 'refuted') {
      refuted.push({ ...finding, verification });
    } else {
      next.kept.push({ ...finding, verification });
      next.inlineMarkers.push(markerWithProbe(settled.inlineMarkers[i] ?? '', verification));
    }
  }
  const skipped = receipt.skippedReason ? ` (skipped: ${receipt.skippedReason})` : '';
  ctx.phase(
    'verify',
    `verification: ${receipt.confirmed} confirmed, ${receipt.refuted} refuted, ${receipt.inconclusive} inconclusive, ${receipt.skipped} skipped${skipped}`,
  );
  return { settled: next, refuted, receipt, ...counters };
}
