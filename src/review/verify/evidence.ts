/**
 * The evidence of a confirmed finding as posted (CONTRACT §22): a collapsed block with the command
 * and its output, at most `MAX_EVIDENCE_CHARS` characters in all, secrets masked. Pure.
 */
import { fencedBlock, neutraliseMarkers } from '../../diff/markdown.js';
import { neutraliseMentions } from '../../diff/mentions.js';
import type { SecretMasker } from '../../secrets.js';
import type { Verification } from './types.js';

/** Largest evidence block, characters (the whole `<details>` element). */
export const MAX_EVIDENCE_CHARS = 2_000;

/** The summary line of the evidence block (what applying a finding recognises it by, §24). */
export const EVIDENCE_SUMMARY = 'Verified by running code';

/** The line ending a finding that was selected for verification but not proven. */
export const NOT_VERIFIED_LINE = '_Not verified by running code._';

/** Marks where the middle of a long output was left out. */
const CUT = '\n… [output shortened] …\n';

/** Keeps the head and tail of `text` within `max` characters, marking the cut. Pure. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= CUT.length) return text.slice(0, Math.max(0, max));
  const head = Math.ceil((max - CUT.length) / 2);
  const tail = max - CUT.length - head;
  return `${text.slice(0, head)}${CUT}${tail > 0 ? text.slice(-tail) : ''}`;
}

function block(summary: string, command: string, output: string): string {
  return [
    '<details>',
    `<summary>${summary}</summary>`,
    '',
    fencedBlock(command, 'sh'),
    '',
    fencedBlock(output === '' ? '(no output)' : output, 'text'),
    '',
    '</details>',
  ].join('\n');
}

/**
 * The evidence block of a `confirmed` verification, or `''` for any other status. The command and
 * output are masked with `masker`, stripped of mentions and of anything shaped like the bot's
 * hidden markers, and the output is shortened (head and tail kept) so the block fits in
 * `MAX_EVIDENCE_CHARS`; a command too long for the block is shortened too.
 */
export function renderEvidence(verification: Verification, masker: SecretMasker): string {
  if (verification.status !== 'confirmed') return '';
  const clean = (text: string) => neutraliseMarkers(neutraliseMentions(masker.mask(text)));
  const summary = EVIDENCE_SUMMARY;
  let command = clean(verification.command.trim()) || '(command not reported)';
  const output = clean(verification.output.replace(/\s+$/, ''));
  const fixed = block(summary, '', '').length + 16; // the fences may grow by a few backticks
  if (command.length > (MAX_EVIDENCE_CHARS - fixed) / 2)
    command = shorten(command, Math.floor((MAX_EVIDENCE_CHARS - fixed) / 2));
  const room = MAX_EVIDENCE_CHARS - fixed - command.length;
  let rendered = block(summary, command, shorten(output, room));
  // Backtick runs in the output can lengthen its fence: cut further until it fits.
  for (let cut = room; rendered.length > MAX_EVIDENCE_CHARS && cut > 0; cut -= 50)
    rendered = block(summary, command, shorten(output, cut));
  return rendered;
}

/** The one-line note of a finding that was selected but not proven (inconclusive, timed out, skipped). */
export function renderNotVerified(verification: Verification): string {
  if (verification.status === 'confirmed' || verification.status === 'refuted') return '';
  return NOT_VERIFIED_LINE;
}
