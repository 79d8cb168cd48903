/**
 * The prompt of a fresh Claude Code session that continues an earlier conversation it cannot
 * resume (no session id, or its transcript is gone): the earlier messages are quoted before the new
 * one, newest kept first when they do not all fit.
 */
import { EMPTY_PROMPT_STAND_IN } from '../api-runner.js';
import type { ConversationMessage } from '../types.js';

/** Budget of quoted history, characters (the newest messages are kept). */
export const MAX_HISTORY_CHARS = 120_000;
/** Longest single quoted message, characters (its middle is left out). */
export const MAX_MESSAGE_CHARS = 40_000;

function clip(text: string): string {
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  const half = Math.floor(MAX_MESSAGE_CHARS / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/**
 * Returns `prompt` alone when `history` has no non-empty message; else the earlier messages
 * (`[user]` / `[assistant]`, oldest first, within `MAX_HISTORY_CHARS`) followed by `prompt`.
 * An empty prompt becomes `EMPTY_PROMPT_STAND_IN` (Claude Code refuses empty prompts). Pure.
 */
export function buildPromptWithHistory(history: readonly ConversationMessage[], prompt: string): string {
  const text = prompt.trim() === '' ? EMPTY_PROMPT_STAND_IN : prompt;
  const entries = history.filter((m) => m.content.trim() !== '');
  if (entries.length === 0) return text;
  const kept: string[] = [];
  let size = 0;
  for (const message of [...entries].reverse()) {
    const entry = `[${message.role}]\n${clip(message.content.trim())}`;
    if (kept.length > 0 && size + entry.length > MAX_HISTORY_CHARS) break;
    kept.unshift(entry);
    size += entry.length;
  }
  const omitted = entries.length - kept.length;
  return [
    'This continues an earlier conversation about this pull request. Its messages so far, oldest first' +
      (omitted > 0 ? ` (${omitted} older messages left out)` : '') +
      ':',
    '<earlier-conversation>',
    kept.join('\n\n'),
    '</earlier-conversation>',
    '',
    'The new message:',
    '',
    text,
  ].join('\n');
}
