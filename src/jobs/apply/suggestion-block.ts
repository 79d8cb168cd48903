/**
 * Reading a finding's suggested replacement back out of the comment the bot posted (CONTRACT §24).
 * The platforms render suggestions differently (`Platform.renderSuggestion`): GitHub a
 * `suggestion` fenced block, GitLab `suggestion:-N+0` (the commented line and N lines above),
 * Gitea a plain fenced block under "Suggested replacement for this line / these N lines:".
 */

/** A suggestion read from a finding's body. */
export interface ParsedSuggestion {
  /** The replacement lines joined with `\n`, without a final newline ('' = delete the lines). */
  text: string;
  /** How many lines the suggestion replaces, when the rendering says (GitLab, Gitea). */
  lineCount?: number;
}

const SUGGESTION_INFO = /^(`{3,})suggestion(?::-(\d{1,5})\+0)?[ \t]*$/;
const GITEA_INTRO = /^Suggested replacement for (?:this line|these (\d{1,5}) lines):[ \t]*$/;
const PLAIN_FENCE = /^(`{3,})[ \t]*$/;

/** The lines after the opening fence at `open` up to the closing `fence`, or undefined if unclosed. */
function blockAt(lines: string[], open: number, fence: string): string[] | undefined {
  for (let i = open + 1; i < lines.length; i++) {
    if (lines[i] === fence) return lines.slice(open + 1, i);
  }
  return undefined;
}

/**
 * The suggestion in finding `body` (line endings read as `\n`), or undefined when it has none. The
 * first suggestion block wins; a block that is never closed is no suggestion.
 */
export function parseSuggestion(body: string): ParsedSuggestion | undefined {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const info = SUGGESTION_INFO.exec(line);
    if (info) {
      const block = blockAt(lines, i, info[1] ?? '```');
      if (!block) return undefined;
      const above = info[2];
      return { text: block.join('\n'), ...(above !== undefined ? { lineCount: Number(above) + 1 } : {}) };
    }
    const intro = GITEA_INTRO.exec(line);
    const open = lines[i + 2] ?? '';
    const plain = PLAIN_FENCE.exec(open);
    if (intro && lines[i + 1] === '' && plain) {
      const block = blockAt(lines, i + 2, plain[1] ?? '```');
      if (!block) return undefined;
      return { text: block.join('\n'), lineCount: intro[1] ? Number(intro[1]) : 1 };
    }
  }
  return undefined;
}
