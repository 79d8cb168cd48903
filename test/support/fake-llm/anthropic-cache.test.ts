import { describe, expect, it } from 'vitest';
import { createPromptCache } from './anthropic-cache.js';

const BIG = 'x'.repeat(8000); // 2,000 tokens at 4 characters per token
const mark = { type: 'ephemeral' };

function request(turns: number, breakpointOnLast = true) {
  const messages: Array<{ role: string; content: Array<Record<string, unknown>> }> = [
    { role: 'user', content: [{ type: 'text', text: BIG, cache_control: mark }] },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `call ${i} ${'y'.repeat(400)}` }] });
    messages.push({ role: 'user', content: [{ type: 'text', text: `result ${i} ${'z'.repeat(400)}` }] });
  }
  if (breakpointOnLast) messages.at(-1)!.content.at(-1)!.cache_control = mark;
  return { system: [{ type: 'text', text: 'system', cache_control: mark }], messages };
}

describe('fake Anthropic prompt cache', () => {
  it('writes the prefix up to the last breakpoint, then reads it from a later request with the same prefix', () => {
    const cache = createPromptCache();
    const first = cache.account(request(0));
    expect(first.cacheReadTokens).toBe(0);
    expect(first.cacheWriteTokens).toBeGreaterThan(2000);
    const second = cache.account(request(1));
    expect(second.cacheReadTokens).toBe(first.cacheWriteTokens);
    expect(second.cacheWriteTokens).toBeGreaterThan(200);
    expect(second.inputTokens).toBeLessThan(5);
    // Turn 3: the breakpoint moved; the lookback finds turn 2's prefix.
    const third = cache.account(request(2));
    expect(third.cacheReadTokens).toBe(first.cacheWriteTokens + second.cacheWriteTokens);
  });

  it('ignores cache_control when comparing prefixes and caches nothing below the minimum length', () => {
    const cache = createPromptCache();
    const small = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'short', cache_control: mark }] }],
    };
    expect(cache.account(small)).toEqual({
      inputTokens: expect.any(Number),
      cacheWriteTokens: 0,
      cacheReadTokens: 0,
    });
    expect(cache.account(small).cacheReadTokens).toBe(0);
    const first = cache.account(request(1));
    const unmarked = cache.account(request(1, false));
    expect(unmarked.cacheReadTokens).toBeGreaterThan(0);
    expect(unmarked.cacheReadTokens).toBeLessThan(first.cacheWriteTokens);
  });

  it('bills everything as input without breakpoints', () => {
    const cache = createPromptCache();
    const plain = { messages: [{ role: 'user', content: BIG }] };
    expect(cache.account(plain)).toEqual({
      inputTokens: expect.any(Number),
      cacheWriteTokens: 0,
      cacheReadTokens: 0,
    });
    expect(cache.account(plain).cacheReadTokens).toBe(0);
  });
});
