import { describe, expect, it } from 'vitest';
import type { Finding } from '../types.js';
import { applyCommentBudget, fileOrderOf, splitByThreshold } from './budget.js';
import type { Severity } from './severity.js';

const f = (
  body: string,
  severity: Severity,
  confidence: number | null,
  path = 'a.ts',
  line = 1,
): Finding => ({
  path,
  line,
  side: 'RIGHT',
  body,
  severity,
  confidence,
});

describe('the comment budget (§21)', () => {
  const order = fileOrderOf(['a.ts', 'b.ts']);

  it('ranks by severity, then confidence (unknown last), then file order; keeps the model order', () => {
    const findings = [
      f('p3', 'P3', 1),
      f('p1 unsure', 'P1', 0.2),
      f('p1 on b', 'P1', null, 'b.ts', 1),
      f('p1 sure', 'P1', 0.9),
      f('p1 on a, unknown confidence', 'P1', null, 'a.ts', 9),
      f('p2', 'P2', 1),
    ];
    const { keep, folded } = applyCommentBudget(findings, 3, order);
    expect(keep.map((i) => findings[i]!.body)).toEqual([
      'p1 unsure',
      'p1 sure',
      'p1 on a, unknown confidence',
    ]);
    expect(folded.map((x) => x.body)).toEqual(['p1 on b', 'p2', 'p3']);
  });

  it('never folds a P0, even past the budget or with max_comments 0', () => {
    const findings = [f('nit', 'P3', 1), f('crash 1', 'P0', 0.1), f('crash 2', 'P0', null)];
    const zero = applyCommentBudget(findings, 0, order);
    expect(zero.keep.map((i) => findings[i]!.body)).toEqual(['crash 1', 'crash 2']);
    expect(zero.folded.map((x) => x.body)).toEqual(['nit']);
    expect(applyCommentBudget(findings, 1, order).folded.map((x) => x.body)).toEqual(['nit']);
  });

  it('keeps everything without a budget', () => {
    const findings = [f('a', 'P3', null), f('b', 'P2', null)];
    expect(applyCommentBudget(findings, undefined, order)).toEqual({ keep: [0, 1], folded: [] });
  });

  it('min_severity sets the less severe ones aside', () => {
    const split = splitByThreshold([f('a', 'P3', null), f('b', 'P1', null), f('c', 'P2', null)], 'P2');
    expect(split.posted.map((x) => x.body)).toEqual(['b', 'c']);
    expect(split.below.map((x) => x.body)).toEqual(['a']);
  });
});
