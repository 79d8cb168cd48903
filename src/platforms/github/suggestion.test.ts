import { describe, expect, it } from 'vitest';
import { renderGitHubSuggestion } from './suggestion.js';

describe('renderGitHubSuggestion', () => {
  it.each([
    ['x();', '```suggestion\nx();\n```'],
    ['a\nb\n', '```suggestion\na\nb\n```'],
    ['```ts\ncode\n```', '````suggestion\n```ts\ncode\n```\n````'],
    ['', '```suggestion\n\n```'],
  ])('%j', (suggestion, block) => {
    expect(renderGitHubSuggestion(suggestion)).toBe(block);
  });
});
