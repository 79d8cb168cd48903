import { describe, expect, it } from 'vitest';
import { scoreCase, scoreOf, scoreOverall } from './scores.js';

describe('scoreOf', () => {
  it('computes precision, recall and F1 to 4 decimals', () => {
    expect(scoreOf(1, 2, 1)).toEqual({ tp: 1, fp: 2, fn: 1, precision: 0.3333, recall: 0.5, f1: 0.4 });
  });

  it('has no precision without findings and an F1 of 0 when golden comments were missed', () => {
    expect(scoreOf(0, 0, 2)).toEqual({ tp: 0, fp: 0, fn: 2, precision: null, recall: 0, f1: 0 });
  });

  it('has nothing to say with neither findings nor golden comments', () => {
    expect(scoreOf(0, 0, 0)).toEqual({ tp: 0, fp: 0, fn: 0, precision: null, recall: null, f1: null });
  });
});

describe('scoreCase', () => {
  it('counts matches, unmatched findings and unmatched golden comments', () => {
    const score = scoreCase(['P1', 'P2', 'P3'], ['P1', undefined], [{ finding: 0, golden: 0 }]);
    expect(score).toMatchObject({ tp: 1, fp: 2, fn: 1, precision: 0.3333, recall: 0.5, f1: 0.4 });
    expect(score.bySeverity.P1).toMatchObject({ tp: 1, fp: 0, fn: 0, precision: 1, recall: 1 });
    // The unstated golden comment is a P2; the P2 finding did not match it.
    expect(score.bySeverity.P2).toMatchObject({ tp: 0, fp: 1, fn: 1, precision: 0, recall: 0, f1: 0 });
    expect(score.bySeverity.P3).toMatchObject({ tp: 0, fp: 1, fn: 0, precision: 0, recall: null });
    expect(score.bySeverity.P0).toMatchObject({
      tp: 0,
      fp: 0,
      fn: 0,
      precision: null,
      recall: null,
      f1: null,
    });
  });

  it("counts a match under the golden comment's severity, else the finding's", () => {
    const score = scoreCase(
      ['P3', 'P1'],
      ['P0', undefined],
      [
        { finding: 0, golden: 0 },
        { finding: 1, golden: 1 },
      ],
    );
    expect(score.bySeverity.P0.tp).toBe(1);
    expect(score.bySeverity.P1.tp).toBe(1);
    expect(score.bySeverity.P3.tp + score.bySeverity.P3.fp).toBe(0);
    expect(score).toMatchObject({ tp: 2, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 });
  });

  it('scores an empty review: every golden comment missed', () => {
    expect(scoreCase([], ['P1', 'P2'], [])).toMatchObject({
      tp: 0,
      fp: 0,
      fn: 2,
      precision: null,
      recall: 0,
      f1: 0,
    });
  });
});

describe('scoreOverall', () => {
  it('adds the cases up (micro average)', () => {
    const a = scoreCase(['P2', 'P2'], ['P2'], [{ finding: 0, golden: 0 }]);
    const b = scoreCase([], ['P1', 'P2'], []);
    const overall = scoreOverall([a, b]);
    expect(overall).toMatchObject({ tp: 1, fp: 1, fn: 2, precision: 0.5, recall: 0.3333, f1: 0.4 });
    expect(overall.bySeverity.P1).toMatchObject({ tp: 0, fp: 0, fn: 1 });
    expect(overall.bySeverity.P2).toMatchObject({ tp: 1, fp: 1, fn: 1 });
  });
});
