/**
 * The suggestion rendering of the platforms whose Markdown has no suggestion block (Gitea and
 * Forgejo, Bitbucket Cloud, Bitbucket Data Center, Azure DevOps): a fixed heading that says how many
 * lines it replaces, a blank line, then the replacement in a plain fenced block. The bot reads it
 * back when someone asks it to apply the finding, so the form is fixed.
 */

/**
 * `Suggested replacement for this line:` (or `these N lines:`), a blank line, and `suggestion` in
 * a fenced block (four backticks when it holds three). `lineCount` is the number of lines replaced
 * (at least 1).
 */
export function renderPlainSuggestion(suggestion: string, lineCount: number): string {
  const body = suggestion.endsWith('\n') ? suggestion : `${suggestion}\n`;
  const fence = body.includes('```') ? '````' : '```';
  const lines = Math.max(1, Math.floor(lineCount));
  const what = lines === 1 ? 'this line' : `these ${lines} lines`;
  return `Suggested replacement for ${what}:\n\n${fence}\n${body}${fence}`;
}
