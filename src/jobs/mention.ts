/**
 * Mention extraction (seed `extract_mention`, CONTRACT §6): finds the first `@<bot username>` in a
 * comment body that is outside Markdown code (inline code spans, ``` / ~~~ fenced blocks) and
 * outside `>` quote lines, and turns it into a Mention (bot type + prompt). Where a mention starts
 * and ends is the platform's own rule (its `UsernameGrammar`, declared in `src/platforms`).
 * The scan is linear in a bounded prefix of the body (`MENTION_SCAN_LIMIT`): the body is untrusted
 * and the scan runs while the webhook waits for its answer.
 */
import type { UsernameGrammar } from '../platforms/usernames.js';
import type { BotType, Mention } from './types.js';

/** The configured bot usernames (`worker.bot_username`, `reviewer.bot_username`). */
export interface MentionNames {
  workerUsername?: string | undefined;
  reviewerUsername?: string | undefined;
  /**
   * Other names that mention the bot (`Platform.getBotMentionNames`, e.g. Bitbucket Cloud's
   * `{<account id>}`) and the bot type they start; a configured username mentioned at the same
   * place wins.
   */
  aliases?: { botType: BotType; usernames: readonly string[] } | undefined;
}

/**
 * How much of a comment body the mention rule reads: its first 65,536 UTF-16 code units (GitHub
 * limits a comment body to 65,536 characters). GitLab notes may be up to 1,000,000 characters; a
 * mention counts only when the character after it lies within this prefix (what follows a name
 * decides where it ends), so one at or beyond the cut is not seen. Keeps the Markdown scan of an
 * untrusted body bounded (it runs on the webhook's request path).
 */
export const MENTION_SCAN_LIMIT = 65_536;

const BACKTICK = 0x60;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/** `[bot]`, the suffix of GitHub App accounts (`<app-slug>[bot]`). */
const BOT_SUFFIX = '[bot]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces `[from, to)` of `chars` with spaces (newlines kept), so offsets stay those of the body. */
function blank(chars: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) if (chars[i] !== '\n') chars[i] = ' ';
}

/** The fence opening a code block on this line (CommonMark: up to 3 spaces, then 3+ ` or ~). */
function fenceOf(line: string): { char: string; length: number } | undefined {
  const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match) return undefined;
  const run = match[1] as string;
  const char = run[0] as string;
  // A backtick fence's info string may not contain backticks.
  if (char === '`' && (match[2] ?? '').includes('`')) return undefined;
  return { char, length: run.length };
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  const run = match?.[1];
  return run !== undefined && run[0] === fence.char && run.length >= fence.length;
}

/**
 * Blanks fenced code blocks (an unclosed fence runs to the end of the body) and quote lines (first
 * non-blank character `>`).
 */
function blankBlocks(body: string, chars: string[]): void {
  let offset = 0;
  let open: { char: string; length: number } | undefined;
  for (const line of body.split('\n')) {
    const end = offset + line.length;
    if (open) {
      blank(chars, offset, end);
      if (closesFence(line, open)) open = undefined;
    } else {
      const fence = fenceOf(line);
      if (fence) {
        open = fence;
        blank(chars, offset, end);
      } else if (/^\s*>/.test(line)) {
        blank(chars, offset, end);
      }
    }
    offset = end + 1;
  }
}

/** A run of backticks: where it starts, how many, and its paragraph (blank lines seen before it). */
interface BacktickRun {
  start: number;
  length: number;
  paragraph: number;
}

/**
 * Every backtick run of `text` in order, with its paragraph number: the count of blank lines
 * (`\n[ \t]*\n`) before the run. Two runs are in one paragraph exactly when no blank line lies
 * between them. One pass, O(text.length).
 */
function backtickRuns(text: string): { runs: BacktickRun[]; paragraphs: number } {
  const runs: BacktickRun[] = [];
  let paragraph = 0;
  let lineStart = 0;
  let lineBlank = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === NEWLINE) {
      // A whitespace-only line between two newlines ends the paragraph.
      if (lineBlank && lineStart > 0) paragraph++;
      lineStart = i + 1;
      lineBlank = true;
    } else if (c === BACKTICK) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) === BACKTICK) end++;
      runs.push({ start: i, length: end - i, paragraph });
      lineBlank = false;
      i = end - 1;
    } else if (c !== SPACE && c !== TAB) {
      lineBlank = false;
    }
  }
  return { runs, paragraphs: paragraph };
}

/**
 * Blanks inline code spans in `text` (already without fenced blocks and quotes): a run of N
 * backticks up to the next run of exactly N backticks in the same paragraph (no blank line in
 * between). A run without a closing run is literal text; a backslash-escaped backtick opens nothing.
 * `cut`: `text` is a prefix of the body, so a run left open in its last paragraph may close after
 * it; such a run is taken to open a span to the end of `text` (a mention there is not seen).
 * O(text.length): each run's closing candidate is found by one backwards pass.
 */
function blankCodeSpans(text: string, chars: string[], cut: boolean): void {
  const { runs, paragraphs } = backtickRuns(text);
  // next[i]: the index of the next run of the same length in the same paragraph, or -1.
  const next = new Int32Array(runs.length).fill(-1);
  const latest = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i] as BacktickRun;
    if (i + 1 < runs.length && (runs[i + 1] as BacktickRun).paragraph !== run.paragraph) latest.clear();
    next[i] = latest.get(run.length) ?? -1;
    latest.set(run.length, i);
  }
  let i = 0;
  while (i < runs.length) {
    const open = runs[i] as BacktickRun;
    const escaped = open.start > 0 && text[open.start - 1] === '\\';
    const j = escaped ? -1 : (next[i] as number);
    if (j >= 0) {
      const close = runs[j] as BacktickRun;
      blank(chars, open.start, close.start + close.length);
      i = j + 1;
    } else if (cut && !escaped && open.paragraph === paragraphs) {
      blank(chars, open.start, text.length);
      return;
    } else {
      i += 1;
    }
  }
}

/**
 * The first `MENTION_SCAN_LIMIT` code units of the body with every character inside code spans,
 * fenced code blocks and quote lines replaced by a space (same length, same offsets), i.e. the text
 * in which mentions count. O(length): linear in the (bounded) prefix, whatever its Markdown.
 */
export function mentionableText(body: string): string {
  const cut = body.length > MENTION_SCAN_LIMIT;
  const prefix = cut ? body.slice(0, MENTION_SCAN_LIMIT) : body;
  // UTF-16 code units, so offsets match `body.slice` (spreading would split by code point).
  const chars = prefix.split('');
  blankBlocks(prefix, chars);
  blankCodeSpans(chars.join(''), chars, cut);
  return chars.join('');
}

/** Compiled mention patterns by username (a server has one or two; built once, not per webhook). */
const patterns = new Map<string, RegExp | undefined>();

function mentionPattern(username: string): RegExp | undefined {
  if (!patterns.has(username)) {
    const base = username.toLowerCase().endsWith(BOT_SUFFIX)
      ? username.slice(0, -BOT_SUFFIX.length)
      : username;
    patterns.set(
      username,
      base === '' ? undefined : new RegExp(`@${escapeRegExp(base)}(?:${escapeRegExp(BOT_SUFFIX)})?`, 'gi'),
    );
  }
  return patterns.get(username);
}

/**
 * Where `@<username>` first occurs in `text` as a mention: offset and matched length. `probe` is
 * the text the grammar looks around a match in: `text` itself, or, when `text` is a cut prefix,
 * `text` plus a letter (a username character on every platform), so a name whose end touches the
 * cut may continue past it and is not taken as a mention. Linear: the matches do not overlap and
 * the grammar reads the characters around each one only up to the next `@`.
 */
function findMention(
  text: string,
  probe: string,
  username: string,
  grammar: UsernameGrammar,
): { index: number; length: number } | undefined {
  const pattern = mentionPattern(username);
  if (!pattern) return undefined;
  for (const match of text.matchAll(pattern)) {
    const end = match.index + match[0].length;
    if (!grammar.canStartMention(probe, match.index) || !grammar.endsMention(probe, end)) continue;
    return { index: match.index, length: match[0].length };
  }
  return undefined;
}

/**
 * Extracts the mention of a bot from a comment body (CONTRACT §6).
 *
 * A mention is `@<username>` (case-insensitive; a `[bot]` suffix may be written or left out for
 * either form of the configured name) where `grammar` (the platform's, `usernameGrammar(platform)`)
 * lets the `@` start a mention (not after a word character: `email@rb.com` is none) and lets the
 * mention end right after the name, i.e. what follows does not continue it into another username
 * (GitHub: letters, digits, `-`, so `@rb-x` is another account and `@rb_` is `rb`; GitLab also `_`
 * and `.`, so `@rb_`, `@rb.x` are other users while `@rb.` ends a sentence), and that is not inside
 * an inline code span, a ``` or ~~~ fenced code block, or a `>` quote line. When both bots are
 * mentioned the first mention decides (`worker.bot_username` → worker, `reviewer.bot_username` →
 * reviewer; the reviewer wins a tie, i.e. when both names are the same); `names.aliases` mention
 * the bot as well, for their bot type, after the configured names in a tie. The prompt is the body
 * with that one mention removed, trimmed.
 *
 * Only the first `MENTION_SCAN_LIMIT` code units are read for the mention (a later one is not
 * seen), in time linear in them; the prompt keeps the whole body.
 *
 * @returns the Mention, or undefined when no configured bot is mentioned.
 */
export function extractMention(
  body: string,
  names: MentionNames,
  grammar: UsernameGrammar,
): Mention | undefined {
  // Most comments mention nobody: skip the Markdown scan then.
  if (!body.includes('@')) return undefined;
  const text = mentionableText(body);
  const probe = text.length < body.length ? `${text}a` : text;
  const candidates: Array<{ botType: BotType; index: number; length: number }> = [];
  const named: Array<readonly [BotType, string | undefined]> = [
    ['reviewer', names.reviewerUsername],
    ['worker', names.workerUsername],
    ...(names.aliases?.usernames ?? []).map((alias) => [names.aliases!.botType, alias] as const),
  ];
  for (const [botType, username] of named) {
    if (!username) continue;
    const found = findMention(text, probe, username, grammar);
    if (found) candidates.push({ botType, ...found });
  }
  if (candidates.length === 0) return undefined;
  const first = candidates.reduce((a, b) => (b.index < a.index ? b : a));
  const prompt = (body.slice(0, first.index) + body.slice(first.index + first.length)).trim();
  return { botType: first.botType, prompt };
}
