/**
 * The `apply` command of a WORKER mention (CONTRACT §24): `apply [extra text]` in a thread the bot
 * started with a finding applies that finding; `apply all` applies every open finding that carries
 * a suggestion. A pure parse of the mention's prompt (the body with the mention removed).
 */

/** What an `apply` mention asks for. */
export type ApplyCommand = { kind: 'one'; extra: string } | { kind: 'all' };

/**
 * The apply command `prompt` starts with, or undefined: the first word is `apply`
 * (case-insensitive) followed by the end or whitespace. `apply all` (nothing after `all`) is the
 * all-findings command; any other text after `apply` is extra instructions, trimmed.
 */
export function parseApplyCommand(prompt: string): ApplyCommand | undefined {
  const match = /^apply(?:\s+([\s\S]*))?$/i.exec(prompt.trim());
  if (!match) return undefined;
  const extra = (match[1] ?? '').trim();
  if (/^all$/i.test(extra)) return { kind: 'all' };
  return { kind: 'one', extra };
}
