/**
 * How a platform spells a username inside comment text, for the mention rule (CONTRACT §6). Each
 * platform declares its grammar in its folder (`github/names.ts`, `gitlab/names.ts`);
 * `usernameGrammar()` in `usernames.ts` maps a platform name to it.
 */

/** A platform's username grammar as it matters for `@mentions` in Markdown text. */
export interface UsernameGrammar {
  /**
   * True when the `@` at `text[at]` may start a mention: the character before it (if any) is not
   * one that makes the `@` part of a word or an e-mail address.
   */
  canStartMention(text: string, at: number): boolean;
  /**
   * True when a mention whose name ends right before `text[end]` ends there: what follows does not
   * continue the name into another (longer) username or a path, by the platform's own rule.
   */
  endsMention(text: string, end: number): boolean;
  /** True when `name` is a valid username (login) on the platform. */
  isUsername(name: string): boolean;
}
