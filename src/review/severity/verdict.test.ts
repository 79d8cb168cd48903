import { describe, expect, it } from 'vitest';
import type { EarlierFinding } from '../memory/state.js';
import type { Severity } from './severity.js';
import { computeVerdict, failsAt, openEarlierFindings, verdictLine, verdictText } from './verdict.js';

function earlier(id: string, severity: Severity, resolved = false): EarlierFinding {
  return {
    thread: { id, path: 'a.ts', resolved, outdated: false, authorUsername: 'bot', body: 'x' },
    marker: { fp: id.padEnd(16, '0'), side: 'RIGHT', n: 1, severity },
  };
}

describe('the verdict (§21)', () => {
  it('is blocking at or above block_on, with the others counted', () => {
    const v = computeVerdict(['P0', 'P1', 'P1', 'P2', 'P3', 'P3', 'P3'], 'P1');
    expect(v).toEqual({ status: 'blocking', counts: { P0: 1, P1: 2, P2: 1, P3: 3 }, blockOn: 'P1' });
    expect(verdictLine(v)).toBe('**Verdict:** blocking — P0 ×1, P1 ×2 · 4 other findings');
  });

  it('is non-blocking below block_on, and clean with nothing open', () => {
    expect(verdictText(computeVerdict(['P2', 'P3'], 'P1'))).toBe('non-blocking — P2 ×1, P3 ×1');
    expect(verdictText(computeVerdict(['P1'], 'P0'))).toBe('non-blocking — P1 ×1');
    expect(verdictText(computeVerdict([], 'P1'))).toBe('clean — no open findings');
    expect(verdictText(computeVerdict(['P0'], 'P1'))).toBe('blocking — P0 ×1');
    expect(verdictText(computeVerdict(['P0', 'P3'], 'P1'))).toBe('blocking — P0 ×1 · 1 other finding');
  });

  it('counts earlier findings unless resolved, addressed or dismissed', () => {
    const all = [earlier('a', 'P0'), earlier('b', 'P1', true), earlier('c', 'P1'), earlier('d', 'P3')];
    const open = openEarlierFindings(all, [all[2]!], new Set([`a.ts\0${'d'.padEnd(16, '0')}`]));
    expect(open.map((f) => f.thread.id)).toEqual(['a']);
  });

  it('--fail-on fails when an open finding is at or above it', () => {
    const v = computeVerdict(['P2'], 'P1');
    expect(failsAt(v, 'P1')).toBe(false);
    expect(failsAt(v, 'P2')).toBe(true);
    expect(failsAt(v, 'P3')).toBe(true);
    expect(failsAt(undefined, 'P3')).toBe(false);
  });
});
