/**
 * What `reviewbot eval` shows: a plain-text table for the terminal and a Markdown report for
 * `--out` (a per-case table, the overall scores, the scores by severity), plus each case's findings
 * and matches as JSON.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatUsd, type CaseResult, type EvalReport } from './run-eval.js';
import type { Score } from './scores.js';
import { EVAL_SEVERITIES } from './severity.js';

function ratio(value: number | null): string {
  return value === null ? '—' : value.toFixed(2);
}

const HEAD = ['case', 'findings', 'golden', 'TP', 'FP', 'FN', 'precision', 'recall', 'F1', 'cost'];

function caseRow(c: CaseResult): string[] {
  if (c.status === 'error' || !c.score) {
    return [c.ref, '—', String(c.golden.length), '—', '—', '—', '—', '—', '—', `error: ${c.error ?? ''}`];
  }
  const s = c.score;
  return [
    c.ref,
    String(c.findings.length),
    String(c.golden.length),
    String(s.tp),
    String(s.fp),
    String(s.fn),
    ratio(s.precision),
    ratio(s.recall),
    ratio(s.f1),
    formatUsd(c.costUsd),
  ];
}

function scoreRow(label: string, s: Score): string[] {
  return [label, String(s.tp), String(s.fp), String(s.fn), ratio(s.precision), ratio(s.recall), ratio(s.f1)];
}

function overallRow(report: EvalReport): string[] {
  const o = report.overall;
  const findings = report.cases.reduce((n, c) => n + (c.score ? c.findings.length : 0), 0);
  const golden = report.cases.reduce((n, c) => n + (c.score ? c.golden.length : 0), 0);
  return [
    'overall',
    String(findings),
    String(golden),
    String(o.tp),
    String(o.fp),
    String(o.fn),
    ratio(o.precision),
    ratio(o.recall),
    ratio(o.f1),
    formatUsd(o.costUsd),
  ];
}

function aligned(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function markdownTable(rows: string[][]): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const [head, ...body] = rows;
  return [
    `| ${head!.map(escape).join(' | ')} |`,
    `|${head!.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.map(escape).join(' | ')} |`),
  ].join('\n');
}

function summaryLine(report: EvalReport): string {
  const o = report.overall;
  return (
    `${report.cases.length} cases: ${o.scored} scored, ${o.errors} errors; ` +
    `${o.tokens.input} input + ${o.tokens.output} output tokens; cost ${formatUsd(o.costUsd)}`
  );
}

/** The terminal's view: per-case table, overall row, scores by severity. */
export function formatEvalText(report: EvalReport): string {
  const severities = EVAL_SEVERITIES.map((s) => scoreRow(s, report.overall.bySeverity[s]));
  return [
    `Eval of "${report.dataset}"`,
    summaryLine(report),
    '',
    aligned([HEAD, ...report.cases.map(caseRow), overallRow(report)]),
    '',
    'By severity:',
    aligned([['severity', 'TP', 'FP', 'FN', 'precision', 'recall', 'F1'], ...severities]),
    '',
  ].join('\n');
}

/** The Markdown report of `--out`. */
export function formatEvalMarkdown(report: EvalReport, caseFiles: readonly string[]): string {
  const severities = EVAL_SEVERITIES.map((s) => scoreRow(s, report.overall.bySeverity[s]));
  const files = report.cases.map((c, i) => `- ${c.ref}: [${caseFiles[i]}](${caseFiles[i]})`);
  return [
    `# Eval of ${report.dataset}`,
    '',
    summaryLine(report),
    '',
    '## Cases',
    '',
    markdownTable([HEAD, ...report.cases.map(caseRow), overallRow(report)]),
    '',
    '## By severity',
    '',
    'A match counts under its golden comment’s severity (the finding’s when the dataset states none);',
    'a finding that matched nothing under its own; a missed golden comment under its own (P2 when none).',
    '',
    markdownTable([['severity', 'TP', 'FP', 'FN', 'precision', 'recall', 'F1'], ...severities]),
    '',
    '## Findings and matches of each case',
    '',
    ...files,
    '',
  ].join('\n');
}

/** File name of case `index` (1-based in the name), from its ref. */
export function caseFileName(index: number, ref: string): string {
  const slug = ref
    .replace(/^https?:\/\//, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `case-${String(index + 1).padStart(3, '0')}-${slug || 'case'}.json`;
}

/**
 * Writes `report.md`, `results.json` (what `--json` prints) and one JSON file per case (its
 * findings, golden comments and matches) into `dir`, made when missing.
 * @returns the report's path.
 */
export async function writeEvalReport(dir: string, report: EvalReport): Promise<string> {
  await mkdir(dir, { recursive: true });
  const names = report.cases.map((c, i) => caseFileName(i, c.ref));
  for (const [i, c] of report.cases.entries()) {
    await writeFile(path.join(dir, names[i]!), `${JSON.stringify(c, null, 2)}\n`);
  }
  await writeFile(path.join(dir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const file = path.join(dir, 'report.md');
  await writeFile(file, formatEvalMarkdown(report, names));
  return file;
}
