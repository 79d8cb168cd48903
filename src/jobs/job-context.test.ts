import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../agent/types.js';
import { trimConversation } from './job-context.js';

const m = (role: 'user' | 'assistant', size: number, tag: string): ConversationMessage => ({
  role,
  content: tag.padEnd(size, '.'),
});

describe('trimConversation', () => {
  const history = [
    m('user', 50, 'u1'),
    m('assistant', 50, 'a1'),
    m('user', 50, 'u2'),
    m('assistant', 50, 'a2'),
  ];
  const tags = (messages: ConversationMessage[]) => messages.map((x) => x.content.slice(0, 2));

  it.each([
    [1000, ['u1', 'a1', 'u2', 'a2']],
    [200, ['u1', 'a1', 'u2', 'a2']],
    [150, ['u2', 'a2']], // dropping u1 leaves a1 first: it goes too
    [100, ['u2', 'a2']],
    [10, ['u2', 'a2']], // the latest exchange is always kept
  ])('budget %i keeps %j', (budget, expected) => {
    expect(tags(trimConversation(history, budget))).toEqual(expected);
  });

  it('keeps short conversations as they are', () => {
    expect(trimConversation([])).toEqual([]);
    expect(tags(trimConversation([m('user', 10, 'u1')], 1))).toEqual(['u1']);
  });
});
