/**
 * GitLab quick actions in what the bot posts. GitLab runs a quick action (`/merge`, `/approve`,
 * `/close`, `/assign @user`, …) written on a line of its own in a note or discussion created through
 * the API, as the note's author (GitLab docs, "GitLab quick actions"; Notes API: a note of quick
 * actions only answers 202). The bot posts text it did not write — model output, probe output,
 * file paths — so a line such as `/merge` in a finding would act with the bot's rights. Such a line
 * gets a U+2060 WORD JOINER before its `/`: it renders the same, and no quick action starts with it.
 * Code blocks are left byte-exact (GitLab runs no quick action inside one, and a suggestion must
 * stay as written).
 */
import { certainCodeRanges } from '../../diff/code-regions.js';
import { WORD_JOINER } from '../../diff/mentions.js';

/** A `/` that starts a line, after at most some blanks. */
const LINE_START_SLASH = /(^|[\r\n])([ \t]*)\//g;

/** `text` with every line that could start a quick action, outside code, made inert. */
export function neutraliseQuickActions(text: string): string {
  if (!text.includes('/')) return text;
  const code = certainCodeRanges(text);
  let next = 0;
  const inCode = (offset: number): boolean => {
    while (next < code.length && (code[next] as { end: number }).end <= offset) next++;
    const range = code[next];
    return range !== undefined && range.start <= offset && offset < range.end;
  };
  return text.replace(LINE_START_SLASH, (match: string, start: string, blanks: string, offset: number) => {
    const slash = offset + start.length + blanks.length;
    return inCode(slash) ? match : `${start}${blanks}${WORD_JOINER}/`;
  });
}
