/**
 * Mention extraction (seed `extract_mention`, CONTRACT §6): finds the first `@<bot username>` in a
 * comment body that is outside Markdown code (inline code spans, ``` / ~~~ fenced blocks) and
 * outside `>` quote lines, and turns it into a Mention (bot type + prompt). Where a mention starts
 * and ends is the platform's own rule (its `UsernameGrammar`, declared in `src/platforms`).
 */
import type { UsernameGrammar } from '../platforms/usernames.js';
import type { BotType, Mention } from './types.js';

/** The configured bot usernames (`worker.bot_username`, `reviewer.bot_username`). */
export interface MentionNames {
  workerUsername?: string | undefined;
  reviewerUsername?: string | undefined;
}

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

/**
 * Blanks inline code spans in `text` (already without fenced blocks and quotes): a run of N
 * backticks up to the next run of exactly N backticks in the same paragraph (no blank line in
 * between). A run without a closing run is literal text; a backslash-escaped backtick opens nothing.
 */
function blankCodeSpans(text: string, chars: string[]): void {
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ start: m.index, length: m[0].length }));
  let i = 0;
  while (i < runs.length) {
    const open = runs[i] as { start: number; length: number };
    const escaped = open.start > 0 && text[open.start - 1] === '\\';
    let closed = false;
    if (!escaped) {
      for (let j = i + 1; j < runs.length; j++) {
        const close = runs[j] as { start: number; length: number };
        const between = text.slice(open.start + open.length, close.start);
        if (/\n[ \t]*\n/.test(between)) break;
        if (close.length === open.length) {
          blank(chars, open.start, close.start + close.length);
          i = j + 1;
          closed = true;
          break;
        }
      }
    }
    if (!closed) i += 1;
  }
}

/**
 * The body with every character inside code spans, fenced code blocks and quote lines replaced by
 * a space (same length, same offsets), i.e. the text in which mentions count.
 */
export function mentionableText(body: string): string {
  // UTF-16 code units, so offsets match `body.slice` (spreading would split by code point).
  const chars = body.split('');
  blankBlocks(body, chars);
  blankCodeSpans(chars.join(''), chars);
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

/** Where `@<username>` first occurs in `text` as a mention: offset and matched length. */
function findMention(
  text: string,
  username: string,
  grammar: UsernameGrammar,
): { index: number; length: number } | undefined {
  const pattern = mentionPattern(username);
  if (!pattern) return undefined;
  for (const match of text.matchAll(pattern)) {
    const end = match.index + match[0].length;
    if (!grammar.canStartMention(text, match.index) || !grammar.endsMention(text, end)) continue;
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
 * reviewer; the reviewer wins a tie, i.e. when both names are the same). The prompt is the body
 * with that one mention removed, trimmed.
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
  const candidates: Array<{ botType: BotType; index: number; length: number }> = [];
  for (const [botType, username] of [
    ['reviewer', names.reviewerUsername],
    ['worker', names.workerUsername],
  ] as const) {
    if (!username) continue;
    const found = findMention(text, username, grammar);
    if (found) candidates.push({ botType, ...found });
  }
  if (candidates.length === 0) return undefined;
  const first = candidates.reduce((a, b) => (b.index < a.index ? b : a));
  const prompt = (body.slice(0, first.index) + body.slice(first.index + first.length)).trim();
  return { botType: first.botType, prompt };
}
