/**
 * The verdict gate (CONTRACT §21), driven the same way in every mode (in-process jobs, cluster Job
 * pods, `reviewbot review`, the GitHub Action): with `review.gate: on`, after a review is posted its
 * verdict is shown next to the head commit as the `reviewbot/verdict` status — red while it is
 * blocking, green otherwise, the counts in its description — which branch protection can require.
 * An allowed user's `override` turns it green for that head, naming who and why. A platform without
 * `setGateStatus`, or `review.gate: off`, shows nothing. Texts are masked and cut to the platform's
 * limits (`Platform.progressLimits`), as progress reports are.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GateReport, Platform } from '../platforms/types.js';
import { verdictText } from '../review/severity/verdict.js';
import type { Verdict } from '../review/types.js';
import type { SecretMasker } from '../secrets.js';
import { cut, progressTarget } from './progress.js';

/** `review.gate` (CONTRACT §3). */
export type GateSetting = 'off' | 'on';

/** The pull request head a gate is shown on. */
export interface GateHead {
  repoFullName: string;
  number: number;
  headSha: string;
  htmlUrl: string;
}

/** What every gate call needs. */
export interface GateContext {
  platform: Platform;
  setting: GateSetting;
  masker: SecretMasker;
  logger: Logger;
}

/** The gate report of a verdict: `failure` when blocking, the verdict in words as its description. */
export function verdictGateReport(verdict: Verdict, url?: string, reviewer?: string): GateReport {
  const text = verdictText(verdict);
  const how = reviewer
    ? `\n\nAn allowed user can turn it green for this head with \`@${reviewer} override <reason>\`.`
    : '';
  return {
    state: verdict.status === 'blocking' ? 'failure' : 'success',
    description: text,
    summary: `**Verdict:** ${text}\n\nBlocking at ${verdict.blockOn} and above (\`review.block_on\`).${how}`,
    ...(url ? { url } : {}),
  };
}

/** The gate report of an override: green, naming who and why. */
export function overrideGateReport(by: string, reason: string, url?: string): GateReport {
  const description = `overridden by @${by}: ${reason}`;
  return { state: 'success', description, summary: description, ...(url ? { url } : {}) };
}

/** `report` masked, on one line, cut to the platform's limits; the summary dropped where it has no place. */
function fitGateReport(report: GateReport, platform: Platform, masker: SecretMasker): GateReport {
  const limits = platform.progressLimits ?? { description: 140, summary: 0 };
  const description = cut(masker.mask(report.description).replace(/\s+/g, ' ').trim(), limits.description);
  const summary = report.summary !== undefined ? masker.mask(report.summary) : undefined;
  return {
    state: report.state,
    description,
    ...(summary && limits.summary > 0 ? { summary: cut(summary, limits.summary) } : {}),
    ...(report.url ? { url: report.url } : {}),
  };
}

/** True when the gate is on and the platform can show it. */
export function gateEnabled(ctx: Pick<GateContext, 'platform' | 'setting'>): boolean {
  return ctx.setting === 'on' && ctx.platform.setGateStatus !== undefined;
}

/**
 * Shows `report` as the gate of `head`.
 * @throws AuthError / PlatformError from the platform.
 */
export async function setGate(ctx: GateContext, head: GateHead, report: GateReport): Promise<void> {
  if (!gateEnabled(ctx)) return;
  await ctx.platform.setGateStatus!(progressTarget(head), fitGateReport(report, ctx.platform, ctx.masker));
}

/**
 * Shows a review's verdict as the gate of the head it reviewed. Never throws: a failure is logged
 * (the review is posted; the gate shows its previous state or nothing).
 */
export async function showVerdictGate(
  ctx: GateContext,
  head: GateHead,
  verdict: Verdict | undefined,
  options: { url?: string; reviewer?: string } = {},
): Promise<void> {
  if (!verdict || !gateEnabled(ctx)) return;
  try {
    await setGate(ctx, head, verdictGateReport(verdict, options.url, options.reviewer));
    ctx.logger.info({ verdict: verdict.status, headSha: head.headSha }, 'verdict gate set');
  } catch (error) {
    ctx.logger.warn({ err: ctx.masker.mask(describeError(error)) }, 'could not set the verdict gate');
  }
}
