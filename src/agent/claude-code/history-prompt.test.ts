import { describe, expect, it } from 'vitest';
import { EMPTY_PROMPT_STAND_IN } from '../api-runner.js';
import { buildPromptWithHistory, MAX_HISTORY_CHARS, MAX_MESSAGE_CHARS } from './history-prompt.js';

describe('buildPromptWithHistory', () => {
  it.each([
    [[], 'Fix it', 'Fix it'],
    [[{ role: 'user' as const, content: '  ' }], 'Fix it', 'Fix it'],
    [[], '   ', EMPTY_PROMPT_STAND_IN],
  ])('returns the prompt alone without usable history (%j, %j)', (history, prompt, expected) => {
    expect(buildPromptWithHistory(history, prompt)).toBe(expected);
  });

  it('quotes earlier messages oldest first, then the new message', () => {
    const text = buildPromptWithHistory(
      [
        { role: 'user', content: 'Why is add wrong?' },
        { role: 'assistant', content: 'It subtracts.' },
      ],
      'Please fix it.',
    );
    expect(text).toBe(
      [
        'This continues an earlier conversation about this pull request. Its messages so far, oldest first:',
        '<earlier-conversation>',
        '[user]\nWhy is add wrong?\n\n[assistant]\nIt subtracts.',
        '</earlier-conversation>',
        '',
        'The new message:',
        '',
        'Please fix it.',
      ].join('\n'),
    );
  });

  it('keeps the newest messages within the budget and says how many were left out', () => {
    const big = 'x'.repeat(MAX_MESSAGE_CHARS - 100);
    const history = Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `#${i} ${big}`,
    }));
    const text = buildPromptWithHistory(history, 'Now?');
    expect(text).toContain('#9 ');
    expect(text).not.toContain('#0 ');
    expect(text).toMatch(/\((\d+) older messages left out\)/);
    expect(text.length).toBeLessThan(MAX_HISTORY_CHARS + 1000);
  });

  it('cuts the middle of a single huge message', () => {
    const text = buildPromptWithHistory(
      [{ role: 'user', content: `HEAD${'y'.repeat(MAX_MESSAGE_CHARS * 2)}TAIL` }],
      'Go',
    );
    expect(text).toContain('HEAD');
    expect(text).toContain('TAIL');
    expect(text).toMatch(/characters left out/);
    expect(text.length).toBeLessThan(MAX_MESSAGE_CHARS + 1000);
  });
});
