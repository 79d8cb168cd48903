/**
 * The receipt of a review (CONTRACT §15): model, agent runs, turns, tool calls, tokens by kind,
 * cost, time and coverage — in `--json`, at the end of every posted review as a collapsed
 * `<details>` block, in the CLI's printed output and (counted) in `/metrics`.
 */
import type { UsageByKind } from '../agent/pricing.js';
import { codeSpan } from '../diff/markdown.js';
import { severityReceiptLines } from './severity/receipt-facts.js';
import type { ReviewReceipt, SkippedFile, VerificationReceipt } from './types.js';

/** Files of the receipt listed by name in the review body at most; the rest are counted. */
const MAX_LISTED = 50;

/** Input of `buildReceipt`. */
export interface ReceiptInput {
  model: string;
  agentRuns: number;
  turns: number;
  toolCalls: number;
  tokens: UsageByKind;
  costUsd: number | null;
  durationMs: number;
  reviewedFiles: number;
  skipped: SkippedFile[];
  notReviewed: string[];
  /** Path → why it was not reviewed, for each of `notReviewed`. */
  notReviewedReasons?: Record<string, string>;
  capped: boolean;
  /** §21: posted findings per severity and how many were below `review.min_severity`. */
  findings?: ReviewReceipt['findings'];
  /** §22: what the verification stage found (when `review.verify` is on). */
  verification?: VerificationReceipt;
}

/** Assembles the receipt; `capped` appears only when true. */
export function buildReceipt(input: ReceiptInput): ReviewReceipt {
  return {
    model: input.model,
    agentRuns: input.agentRuns,
    turns: input.turns,
    toolCalls: input.toolCalls,
    tokens: { ...input.tokens },
    costUsd: input.costUsd === null ? null : Math.round(input.costUsd * 1e6) / 1e6,
    durationMs: input.durationMs,
    files: { reviewed: input.reviewedFiles, skipped: input.skipped, notReviewed: input.notReviewed },
    ...(input.notReviewed.length > 0 && input.notReviewedReasons
      ? { notReviewedReasons: { ...input.notReviewedReasons } }
      : {}),
    ...(input.capped ? { capped: true } : {}),
    ...(input.findings ? { findings: input.findings } : {}),
    ...(input.verification ? { verification: { ...input.verification } } : {}),
  };
}

/** `$0.0123`, or `unknown` for a null cost. */
export function formatCost(costUsd: number | null): string {
  if (costUsd === null) return 'unknown (no price for this model)';
  return `$${costUsd < 0.01 ? costUsd.toFixed(4) : costUsd.toFixed(2)}`;
}

/** `1,234` */
function n(value: number): string {
  return value.toLocaleString('en-US');
}

function listed(items: string[]): string[] {
  const lines = items.slice(0, MAX_LISTED);
  if (items.length > MAX_LISTED) lines.push(`… and ${n(items.length - MAX_LISTED)} more`);
  return lines.map((line) => `- ${line}`);
}

/** Skipped files grouped by reason: `lock file: 2, generated: 40`. */
export function skippedByReason(skipped: SkippedFile[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  return counts;
}

/** The one-paragraph notice put before the summary when the cost cap stopped the review. */
export function cappedNotice(maxCostUsd: number): string {
  return (
    `**Stopped at the cost cap** (\`review.max_cost_usd\` = $${maxCostUsd}): the agent runs were ` +
    'stopped and this review holds what they found before that; see the receipt below.'
  );
}

/** The notice put before the summary when some parts' agent runs failed (the others were posted). */
export function failedPartsNotice(failed: number, parts: number): string {
  return (
    `**${failed} of ${parts} parts could not be reviewed** (their agent run failed): their files are ` +
    'listed as not reviewed in the receipt below; this review holds what the other parts found.'
  );
}

/**
 * The receipt block's lines about verification (§22), e.g. `- Verification: 1 confirmed · 1 refuted
 * (not posted) · 0 inconclusive · 0 skipped · 12.3 s`, then why findings were skipped when some were;
 * none when the stage was off.
 */
export function verificationReceiptLines(receipt: ReviewReceipt): string[] {
  const v = receipt.verification;
  if (!v) return [];
  const lines = [
    `- Verification: ${n(v.confirmed)} confirmed · ${n(v.refuted)} refuted (not posted) · ` +
      `${n(v.inconclusive)} inconclusive · ${n(v.skipped)} skipped · ${(v.durationMs / 1000).toFixed(1)} s`,
  ];
  if (v.skippedReason) lines.push(`- Not verified: ${v.skippedReason}`);
  return lines;
}

/**
 * The receipt as a collapsed `<details>` block for the end of a review body: the facts on one
 * line each, then the skipped files with their reasons and the files not reviewed (up to 50 named
 * per list). File names are code spans, so the pull request's paths cannot inject Markdown.
 */
export function renderReceipt(receipt: ReviewReceipt): string {
  const { tokens, files } = receipt;
  const lines = [
    '<details>',
    `<summary>Review receipt: ${n(files.reviewed)} files reviewed, ${n(files.skipped.length)} skipped, ` +
      `${n(files.notReviewed.length)} not reviewed · ${formatCost(receipt.costUsd)}${receipt.capped ? ' · stopped at the cost cap' : ''}</summary>`,
    '',
    `- Model: ${codeSpan(receipt.model)}`,
    `- Agent runs: ${n(receipt.agentRuns)} · turns: ${n(receipt.turns)} · tool calls: ${n(receipt.toolCalls)}`,
    `- Tokens: ${n(tokens.input)} input · ${n(tokens.cacheWrite)} cache write · ${n(tokens.cacheRead)} cache read · ${n(tokens.output)} output`,
    `- Cost: ${formatCost(receipt.costUsd)}${receipt.capped ? ' (stopped at the cost cap)' : ''}`,
    `- Time: ${(receipt.durationMs / 1000).toFixed(1)} s`,
    ...severityReceiptLines(receipt),
    ...verificationReceiptLines(receipt),
  ];
  if (files.skipped.length > 0) {
    const counts = [...skippedByReason(files.skipped)].map(([reason, count]) => `${reason} ${n(count)}`);
    lines.push('', `Skipped (${counts.join(', ')}):`, '');
    lines.push(...listed(files.skipped.map((s) => `${codeSpan(s.path)} (${s.reason})`)));
  }
  if (files.notReviewed.length > 0) {
    const why = receipt.notReviewedReasons ?? {};
    lines.push('', 'Not reviewed:', '');
    lines.push(
      ...listed(
        files.notReviewed.map((path) => (why[path] ? `${codeSpan(path)} (${why[path]})` : codeSpan(path))),
      ),
    );
  }
  lines.push('', '</details>');
  return lines.join('\n');
}
