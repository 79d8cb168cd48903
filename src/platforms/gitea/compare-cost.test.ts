/**
 * The Gitea comparison makes each file's hunks with jsdiff on the event loop (O(N·D)): a file the
 * pull request rewrote wholesale must not hold the server for tens of seconds.
 */
import { describe, expect, it } from 'vitest';
import { hunksBetween } from './memory-api.js';

function text(prefix: string, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${prefix} ${i} ${(i * 7919) % 104729}`).join('\n');
}

describe('hunksBetween', () => {
  it('makes the hunks of a small change', () => {
    expect(hunksBetween('a.ts', 'a\nb\nc\n', 'a\nB\nc\n')).toBe('@@ -1,3 +1,3 @@\n a\n-b\n+B\n c');
    expect(hunksBetween('a.ts', 'a\n', 'a\n')).toBeUndefined();
  });

  it('gives up (null) on a diff too costly to compute, within its time bound', () => {
    const started = performance.now();
    expect(hunksBetween('big.ts', text('old', 10_000), text('new', 10_000))).toBeNull();
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
