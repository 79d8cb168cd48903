/**
 * Reading a finding's suggested replacement back out of the comment the bot posted (CONTRACT §24).
 * The platforms render suggestions differently (`Platform.renderSuggestion`): GitHub a
 * `suggestion` fenced block, GitLab `suggestion:-N+0` (the commented line and N lines above),
 * Gitea, Bitbucket Cloud, Bitbucket Data Center and Azure DevOps a plain fenced block under
 * "Suggested replacement for this line / these N lines:".
 *
 * The bot appends the rendered suggestion after the finding's text, and after that only what the
 * verification of the finding left (CONTRACT §22: its evidence block, or the line saying it was not
 * verified) and its hidden marker, so the suggestion is the block that ends the body once those are
 * set aside: a block in the middle of the text (a model quoting a suggestion, an example) is never
 * read as the finding's suggestion.
 */
import { EVIDENCE_SUMMARY, NOT_VERIFIED_LINE } from '../../review/verify/evidence.js';

/** A suggestion read from a finding's body. */
export interface ParsedSuggestion {
  /** The replacement lines joined with `\n`, without a final newline ('' = delete the lines). */
  text: string;
  /** How many lines the suggestion replaces, when the rendering says (all but GitHub's). */
  lineCount?: number;
}

const SUGGESTION_INFO = /^(`{3,})suggestion(?::-(\d{1,5})\+0)?[ \t]*$/;
const PLAIN_INTRO = /^Suggested replacement for (?:this line|these (\d{1,5}) lines):[ \t]*$/;
const PLAIN_FENCE = /^(`{3,})[ \t]*$/;
/** Hidden markers: HTML comments, and the link-reference form of the Markdown-only platforms. */
const TRAILING_MARKERS = /(?:\s*(?:<!--[\s\S]*?-->|\[\/\/\]: # \([^\n]*\)))*\s*$/;

/** A closing fence: backticks only. */
const FENCE_ONLY = /^`{3,}$/;

/**
 * Index of the line opening the fenced block that line `close` closes, when that opening carries
 * `info`, or -1. Scans up: a block the product fenced holds no backtick run as long as its fence
 * (`fencedBlock`), so no line of its content can pass for the opening.
 */
function openingOf(lines: string[], close: number, info: string): number {
  const fence = lines[close] ?? '';
  if (!FENCE_ONLY.test(fence)) return -1;
  for (let i = close - 1; i >= 0; i--) if (lines[i] === `${fence}${info}`) return i;
  return -1;
}

/**
 * `text` (a finding's body, markers removed, `\n` line endings) without the note its verification
 * ended it with: the not-verified line, or the evidence block as `renderEvidence` writes it —
 * `<details>`, the summary, a blank line, the command's `sh` block, a blank line, the output's
 * `text` block, a blank line, `</details>` — recognised by that exact shape, read from the end
 * (the probe's output, whatever it prints, stays inside its block). Anything else: `text` as is.
 */
export function withoutVerificationNote(text: string): string {
  const lines = text.split('\n');
  const last = lines.length - 1;
  const before = (index: number) => lines.slice(0, index).join('\n').replace(/\n+$/, '');
  if (lines[last] === NOT_VERIFIED_LINE) return before(last);
  if (lines[last] !== '</details>' || lines[last - 1] !== '') return text;
  const output = openingOf(lines, last - 2, 'text');
  if (output < 2 || lines[output - 1] !== '') return text;
  const command = openingOf(lines, output - 2, 'sh');
  if (
    command < 3 ||
    lines[command - 1] !== '' ||
    lines[command - 2] !== `<summary>${EVIDENCE_SUMMARY}</summary>` ||
    lines[command - 3] !== '<details>'
  )
    return text;
  return before(command - 3);
}

/** Index of the first line after `open` equal to `fence`, or -1. */
function closingOf(lines: string[], open: number, fence: string): number {
  for (let i = open + 1; i < lines.length; i++) {
    if (lines[i] === fence) return i;
  }
  return -1;
}

/**
 * The suggestion in finding `body` (line endings read as `\n`), or undefined when it has none: the
 * first opening (a `suggestion` fence, or a plain fence after the "Suggested replacement for …:"
 * line and a blank line) whose block closes on the body's last line, hidden markers and the
 * verification's note after it ignored (`withoutVerificationNote`). A block that is never closed,
 * or followed by more text, is no suggestion.
 */
export function parseSuggestion(body: string): ParsedSuggestion | undefined {
  const text = withoutVerificationNote(body.replace(/\r\n/g, '\n').replace(TRAILING_MARKERS, ''));
  const lines = text.split('\n');
  const last = lines.length - 1;
  for (let i = 0; i < last; i++) {
    const line = lines[i] ?? '';
    const info = SUGGESTION_INFO.exec(line);
    if (info && closingOf(lines, i, info[1] ?? '```') === last) {
      const above = info[2];
      const block = lines.slice(i + 1, last).join('\n');
      return { text: block, ...(above !== undefined ? { lineCount: Number(above) + 1 } : {}) };
    }
    const intro = PLAIN_INTRO.exec(line);
    const plain = PLAIN_FENCE.exec(lines[i + 2] ?? '');
    if (intro && lines[i + 1] === '' && plain && closingOf(lines, i + 2, plain[1] ?? '```') === last) {
      const block = lines.slice(i + 3, last).join('\n');
      return { text: block, lineCount: intro[1] ? Number(intro[1]) : 1 };
    }
  }
  return undefined;
}
