/**
 * Markdown rendering of findings: the body of one inline comment, and the review body that carries
 * the summary plus every finding that could not be posted inline (CONTRACT §7).
 *
 * These are the places where text the bot did not write (model output, file paths, notices that
 * quote errors or settings) enters a posted review: both run it through `neutraliseMarkers` and
 * `neutraliseMentions` (a mention in model text pings no one; code, suggestions included, stays
 * byte-exact), file paths are code spans nothing can escape (`codeSpan`), and only the bot's own
 * hidden markers are appended afterwards (§13, issue 27).
 */
import type { Finding } from './types.js';
import { codeSpan, fencedBlock } from '../diff/markdown.js';
import { neutraliseMentions } from '../diff/mentions.js';
import { neutraliseMarkers } from './memory/markers.js';
import { severityBadge, withSeverityBadge } from './severity/severity.js';
import { renderEvidence, renderNotVerified } from './verify/evidence.js';
import { SecretMasker } from '../secrets.js';

/** Heading of the section that lists rejected findings in the review body (CONTRACT §7). */
export const ADDITIONAL_NOTES_HEADING = 'Additional notes (not in diff)';

/** Number of lines a finding covers: `line - startLine + 1`, or 1 without a valid `startLine`. */
export function lineCountOf(finding: Pick<Finding, 'line' | 'startLine'>): number {
  const { line, startLine } = finding;
  if (startLine === undefined || !Number.isInteger(startLine) || startLine >= line) return 1;
  return line - startLine + 1;
}

/** Masks nothing: for a caller with no secrets to mask (the evidence was masked when it was kept). */
const NO_SECRETS = new SecretMasker();

/**
 * The Markdown body of one inline comment: the finding's severity badge (`**P1**`, §21) and its
 * trimmed body, then, for a RIGHT-side
 * finding with a suggestion, the suggestion in the platform's syntax after a blank line. A LEFT-side
 * suggestion is never rendered (it would suggest changing the old file). Marker-shaped text is
 * neutralised (`neutraliseMarkers`), and so are mentions outside code (`neutraliseMentions`: the
 * suggestion block is code and stays byte-exact); the caller appends the finding's own marker.
 * A finding the verification stage selected (§22) ends with its evidence when it was confirmed (a
 * collapsed block, `renderEvidence`), else with the line saying it was not verified.
 *
 * @param renderSuggestion the platform's renderer (`Platform.renderSuggestion`), called with the
 *   suggested replacement text and the number of lines it replaces.
 * @param masker masks secrets in the evidence (default: none).
 */
export function renderInlineBody(
  finding: Finding,
  renderSuggestion: (suggestion: string, lineCount: number) => string,
  masker: SecretMasker = NO_SECRETS,
): string {
  const parts: string[] = [];
  const body = finding.body.trim();
  parts.push(withSeverityBadge(body, finding.severity));
  if (finding.suggestion !== undefined && finding.side === 'RIGHT') {
    parts.push(renderSuggestion(finding.suggestion, lineCountOf(finding)));
  }
  const rendered = neutraliseMentions(neutraliseMarkers(parts.join('\n\n')));
  const { verification } = finding;
  if (verification === undefined) return rendered;
  // Already masked and neutralised by its renderer (the command and output are code blocks).
  const note = renderEvidence(verification, masker) || renderNotVerified(verification);
  return note === '' ? rendered : `${rendered}\n\n${note}`;
}

/** `path:line` or `path:start-line`, or the bare path when the line is not a positive integer. */
function locationOf(finding: Finding): string {
  const path = finding.path.trim();
  if (path.length === 0) return 'general';
  if (!Number.isInteger(finding.line) || finding.line < 1) return path;
  const { startLine } = finding;
  const range =
    startLine !== undefined && Number.isInteger(startLine) && startLine >= 1 && startLine < finding.line
      ? `${startLine}-${finding.line}`
      : String(finding.line);
  return `${path}:${range}`;
}

/** Indents every line but the first by two spaces, so the text stays inside a list item. */
function indentRest(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/\n(?=.)/g, '\n  ');
}

function renderNote(finding: Finding): string {
  const head = `- ${severityBadge(finding.severity)} ${codeSpan(locationOf(finding))} (${finding.side})`;
  const body = finding.body.trim();
  const lines = [body.length > 0 ? `${head}: ${indentRest(body)}` : head];
  if (finding.suggestion !== undefined && finding.side === 'RIGHT') {
    lines.push('', `  Suggested replacement:`, '', `  ${indentRest(fencedBlock(finding.suggestion))}`);
  }
  return lines.join('\n');
}

/**
 * The review body: the trimmed summary, then, when some findings were rejected, a
 * `### Additional notes (not in diff)` section with one list item per finding —
 * `` `path:line` (SIDE): body `` (ranges as `path:start-line`), and a RIGHT-side suggestion as a
 * plain fenced block (not a platform suggestion: it cannot be applied from the review body).
 *
 * @param summary the model's summary (may be empty).
 * @param rejected findings not postable inline, in the order to list them.
 * Everything but `extras.markers` is neutralised (`neutraliseMarkers`), so the bot's own review
 * marker is the only one in the body, and its last line; mentions outside code are neutralised
 * (`neutraliseMentions`), so the model's `@team` pings no one. The body holds no intentional mention.
 *
 * @param extras sections other concerns add (see `ReviewBodyExtras`); empty ones are skipped.
 * @returns Markdown, or `''` when there is neither a summary nor a rejected finding.
 */
export function buildReviewBody(summary: string, rejected: Finding[], extras: ReviewBodyExtras = {}): string {
  const sections: string[] = [];
  for (const part of extras.before ?? []) if (part.trim().length > 0) sections.push(part.trim());
  const trimmed = summary.trim();
  if (trimmed.length > 0) sections.push(trimmed);
  for (const part of extras.afterSummary ?? []) if (part.trim().length > 0) sections.push(part.trim());
  if (rejected.length > 0) {
    sections.push(`### ${ADDITIONAL_NOTES_HEADING}`);
    sections.push(rejected.map(renderNote).join('\n\n'));
  }
  for (const part of extras.after ?? []) if (part.trim().length > 0) sections.push(part.trim());
  const hidden = (extras.markers ?? []).join('\n');
  return [neutraliseMentions(neutraliseMarkers(sections.join('\n\n'))), hidden]
    .filter((p) => p.length > 0)
    .join('\n\n');
}

/**
 * Sections around the summary, built by the concerns that own them: notices before the summary
 * (e.g. why a review is full, a bad `.reviewbot.yaml` key), sections after the notes (e.g.
 * "Addressed since the last review", the receipt) and hidden markers last (§13).
 */
export interface ReviewBodyExtras {
  before?: string[];
  /** Lines right under the summary, before the notes (the §21 verdict). */
  afterSummary?: string[];
  after?: string[];
  /** Hidden HTML-comment markers, appended at the very end. */
  markers?: string[];
}
