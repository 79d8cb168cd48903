/**
 * `printReview()` (seed "CLI request flow" step 5): the review as a reader wants it in a terminal —
 * file:line, side, body and suggestion of each inline finding, the notes not in the diff, tokens and
 * time. Colored only on a TTY without NO_COLOR.
 */
import { styleText } from 'node:util';
import type { ExecuteReviewResult, Finding } from '../review/types.js';

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
  const section = (heading: string, items: Finding[]): void => {
    out.push(c(['bold', 'underline'], `${heading} (${items.length})`));
    for (const f of items) {
      out.push(`  ${c(['cyan', 'bold'], location(f))} ${c('dim', `(${f.side})`)}`);
      out.push(indent(f.body.trim(), '    '));
      if (f.suggestion !== undefined) {
        out.push(c('green', '    suggestion:'), c('green', indent(f.suggestion, '      │ ')));
      }
      out.push('');
    }
    if (items.length === 0) out.push('  none', '');
  };
  section('Inline comments', result.findings);
  if (result.rejected.length > 0) section('Notes not in the diff', result.rejected);
  if (result.repeats && result.repeats.length > 0)
    section('Raised in an earlier review, not repeated', result.repeats);
  const seconds = (result.durationMs / 1000).toFixed(1);
  out.push(
    c(
      'dim',
      `model ${result.model} · ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens · ${seconds} s`,
    ),
  );
  out.push(options.postedLine);
  return `${out.join('\n')}\n`;
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
