import { describe, expect, it } from 'vitest';
import {
  atOrAbove,
  countBySeverity,
  severityBadge,
  toConfidence,
  toSeverity,
  withSeverityBadge,
} from './severity.js';

describe('severity', () => {
  it.each([
    ['P0', 'P0'],
    ['p3', 'P3'],
    [' P1 ', 'P1'],
    ['1', 'P1'],
    [2, 'P2'],
    ['P5', 'P2'],
    ['critical', 'P2'],
    [undefined, 'P2'],
    [null, 'P2'],
  ])('%j reads as %s', (value, expected) => {
    expect(toSeverity(value)).toBe(expected);
  });

  it.each([
    [0.5, 0.5],
    ['1', 1],
    ['40%', 0.4],
    [-0.1, null],
    [1.5, null],
    [Number.NaN, null],
    ['sure', null],
    [undefined, null],
  ])('confidence %j reads as %j', (value, expected) => {
    expect(toConfidence(value)).toBe(expected);
  });

  it('orders P0 above P3', () => {
    expect(atOrAbove('P0', 'P1')).toBe(true);
    expect(atOrAbove('P1', 'P1')).toBe(true);
    expect(atOrAbove('P2', 'P1')).toBe(false);
    expect(countBySeverity([{ severity: 'P1' }, { severity: 'P1' }, { severity: 'P3' }])).toEqual({
      P0: 0,
      P1: 2,
      P2: 0,
      P3: 1,
    });
    expect(severityBadge('P1')).toBe('**P1**');
    expect(withSeverityBadge(' Crash. ', 'P0')).toBe('**P0** Crash.');
    expect(withSeverityBadge('**P2** Crash.', 'P0')).toBe('**P0** Crash.');
    expect(withSeverityBadge('**P2**', 'P1')).toBe('**P1**');
    expect(withSeverityBadge('**Note**: x', 'P3')).toBe('**P3** **Note**: x');
  });
});
