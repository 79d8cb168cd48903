/** `withoutOwnMarker`: what it removes, and that it stays linear on long runs of newlines. */
import { describe, expect, it } from 'vitest';
import { withoutOwnMarker } from './markdown.js';

const MARKER =
  '<!-- reviewbot:review head=0123456789abcdef0123456789abcdef01234567 at=2026-01-01T00:00:00.000Z -->';

describe('withoutOwnMarker', () => {
  it('removes the trailing marker with the blank lines before it, and nothing else', () => {
    expect(withoutOwnMarker(`Summary.\n\n\n${MARKER}\n`)).toBe('Summary.');
    expect(withoutOwnMarker(MARKER)).toBe('');
    expect(withoutOwnMarker(`Summary.\n\n${MARKER}\n\nmore`)).toBe(`Summary.\n\n${MARKER}\n\nmore`);
    expect(withoutOwnMarker('a\n\n\nb')).toBe('a\n\n\nb');
  });

  it('is linear in a body of many newlines (the model writes the bodies the bot posted)', () => {
    // A quadratic pattern takes seconds here (65,536 characters: a GitHub comment's limit).
    const body = `a${'\n'.repeat(65_534)}b`;
    const started = performance.now();
    expect(withoutOwnMarker(body)).toBe(body);
    expect(withoutOwnMarker(`${body}\n${MARKER}`)).toBe(body);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
