/**
 * Learning commands in a REVIEWER mention (CONTRACT §20): the mention's prompt (the comment with the
 * mention removed, §6) starting with `learn`, `remember` or `forget` (any case) followed by a space,
 * a colon or the end. Anything else is a review request.
 */

/** A parsed learning command. */
export type LearningCommand =
  /** `learn <text>` / `remember <text>`: `text` trimmed, possibly empty (answered with usage). */
  | { kind: 'learn'; text: string }
  /** `forget <id>`: `id` as written (trimmed, lower-cased), possibly not a valid id. */
  | { kind: 'forget'; id: string };

const COMMAND = /^(learn|remember|forget)(?![\p{L}\p{N}_-])[ \t]*:?/iu;

/** The command of `prompt`, or undefined when the prompt is not a learning command. */
export function parseLearningCommand(prompt: string): LearningCommand | undefined {
  const trimmed = prompt.trim();
  const match = COMMAND.exec(trimmed);
  if (!match) return undefined;
  const rest = trimmed.slice(match[0].length).trim();
  if (match[1]!.toLowerCase() === 'forget') {
    return { kind: 'forget', id: (rest.split(/\s+/)[0] ?? '').replace(/^`|`$/g, '').toLowerCase() };
  }
  return { kind: 'learn', text: rest };
}
