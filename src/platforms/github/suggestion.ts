/**
 * GitHub's suggested-change block ("Incorporating feedback in your pull request": a fenced block
 * with the info string `suggestion` in a review comment replaces the commented lines). Shared by
 * the GitHub platform and `review --local`, which renders findings the way GitHub would.
 */

/**
 * Renders `suggestion` (the replacement lines) as a `suggestion` block: a final newline added when
 * missing, and a four-backtick fence when the text itself holds a three-backtick fence.
 */
export function renderGitHubSuggestion(suggestion: string): string {
  const body = suggestion.endsWith('\n') ? suggestion : `${suggestion}\n`;
  const fence = body.includes('```') ? '````' : '```';
  return `${fence}suggestion\n${body}${fence}`;
}
