/**
 * `printReview()` (seed "CLI request flow" step 5): the review as a reader wants it in a terminal —
 * file:line, side, body and suggestion of each inline finding, the notes not in the diff, tokens and
 * time. Colored only on a TTY without NO_COLOR.
 */
import { styleText } from 'node:util';
import { formatCost, skippedByReason } from '../review/receipt.js';
import { atOrAbove } from '../review/severity/severity.js';
import { verdictText } from '../review/severity/verdict.js';
import type { ExecuteReviewResult, Finding, ReviewReceipt } from '../review/types.js';

type Style = Parameters<typeof styleText>[0];

/** How to print. */
export interface PrintOptions {
  color: boolean;
  /** Title line, e.g. `acme/widgets#12 "Add parser"`. */
  title: string;
  /** What happened to the review: e.g. "posted as a review: <url>" or "not posted (--dry-run)". */
  postedLine: string;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line ? prefix + line : line))
    .join('\n');
}

function location(f: Finding): string {
  const range =
    f.startLine !== undefined && f.startLine < f.line ? `${f.startLine}-${f.line}` : String(f.line);
  return `${f.path}:${range}`;
}

/** What running code said about a finding (§22), on one line; '' when it was not selected. */
function verificationLine(f: Finding): string {
  const v = f.verification;
  if (!v) return '';
  if (v.status === 'skipped' || v.status === 'inconclusive') {
    const why = [v.status === 'inconclusive' ? 'inconclusive' : '', v.reason ?? ''].filter((t) => t !== '');
    return `not verified${why.length > 0 ? ` (${why.join(': ')})` : ''}`;
  }
  const command = v.command.trim().split('\n')[0] ?? '';
  return `${v.status} by running code${command ? `: ${command}` : ''}`;
}

/** Formats `result` for a terminal. Returns the text (ending with a newline). */
export function formatReview(result: ExecuteReviewResult, options: PrintOptions): string {
  const c = (style: Style, text: string): string => (options.color ? styleText(style, text) : text);
  const out: string[] = [];
  out.push(c('bold', `Review of ${options.title}`), '');
  const memory = result.incremental;
  if (memory?.mode === 'incremental' && memory.sinceSha) {
    out.push(c('dim', `Incremental: changes since ${memory.sinceSha.slice(0, 12)}`), '');
  } else if (memory?.mode === 'full' && memory.reason) {
    out.push(c('yellow', `Full review: ${memory.reason}`), '');
  }
  out.push(c(['bold', 'underline'], 'Summary'), indent(result.summary.trim() || '(no summary)', '  '), '');
  if (result.verdict) {
    const style: Style = result.verdict.status === 'blocking' ? ['red', 'bold'] : 'bold';
    out.push(c(style, `Verdict: ${verdictText(result.verdict)}`), '');
  }
  const section = (heading: string, items: Finding[]): void => {
    out.push(c(['bold', 'underline'], `${heading} (${items.length})`));
    for (const f of items) {
      const badge = c(atOrAbove(f.severity, 'P1') ? ['red', 'bold'] : 'bold', `[${f.severity}]`);
      out.push(`  ${badge} ${c(['cyan', 'bold'], location(f))} ${c('dim', `(${f.side})`)}`);
      out.push(indent(f.body.trim(), '    '));
      if (f.suggestion !== undefined) {
        out.push(c('green', '    suggestion:'), c('green', indent(f.suggestion, '      │ ')));
      }
      const verified = verificationLine(f);
      if (verified) out.push(c('dim', `    ${verified}`));
      out.push('');
    }
    if (items.length === 0) out.push('  none', '');
  };
  section('Inline comments', result.findings);
  if (result.rejected.length > 0) section('Notes not in the diff', result.rejected);
  if (result.repeats && result.repeats.length > 0)
    section('Raised in an earlier review, not repeated', result.repeats);
  if (result.belowThreshold && result.belowThreshold.length > 0)
    section('Below review.min_severity, not posted', result.belowThreshold);
  if (result.refuted && result.refuted.length > 0)
    section('Refuted by running code, not posted', result.refuted);
  const seconds = (result.durationMs / 1000).toFixed(1);
  out.push(
    c(
      'dim',
      `model ${result.model} · ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens · ${seconds} s`,
    ),
  );
  if (result.receipt) out.push(...formatReceipt(result.receipt).map((line) => c('dim', line)));
  out.push(options.postedLine);
  return `${out.join('\n')}\n`;
}

/** The receipt (§15) as a few terminal lines: runs, tokens by kind, cost, coverage. */
export function formatReceipt(receipt: ReviewReceipt): string[] {
  const { tokens, files } = receipt;
  const lines = [
    `receipt: ${receipt.agentRuns} agent run(s), ${receipt.turns} turns, ${receipt.toolCalls} tool calls · ` +
      `tokens ${tokens.input} input, ${tokens.cacheWrite} cache write, ${tokens.cacheRead} cache read, ${tokens.output} output · ` +
      `cost ${formatCost(receipt.costUsd)}${receipt.capped ? ' · stopped at the cost cap' : ''}`,
    `files: ${files.reviewed} reviewed, ${files.skipped.length} skipped, ${files.notReviewed.length} not reviewed`,
  ];
  const v = receipt.verification;
  if (v) {
    lines.push(
      `verification: ${v.confirmed} confirmed, ${v.refuted} refuted, ${v.inconclusive} inconclusive, ${v.skipped} skipped` +
        (v.skippedReason ? ` (${v.skippedReason})` : ''),
    );
  }
  const counts = [...skippedByReason(files.skipped)].map(([reason, n]) => `${reason} ${n}`);
  if (counts.length > 0) lines.push(`skipped: ${counts.join(', ')}`);
  if (files.notReviewed.length > 0) {
    const shown = files.notReviewed.slice(0, 10).join(', ');
    const more = files.notReviewed.length > 10 ? ` … and ${files.notReviewed.length - 10} more` : '';
    lines.push(`not reviewed: ${shown}${more}`);
  }
  return lines;
}

/** Writes the formatted review to `stream` (stdout), colored when it is a TTY and NO_COLOR is unset. */
export function printReview(
  result: ExecuteReviewResult,
  options: Omit<PrintOptions, 'color'>,
  stream: NodeJS.WriteStream = process.stdout,
): void {
  const color = Boolean(stream.isTTY) && !process.env.NO_COLOR;
  stream.write(formatReview(result, { ...options, color }));
}
