import { describe, expect, it } from 'vitest';
import { enforceOneToOne, judgeMatchesOf } from './matching.js';

describe('enforceOneToOne', () => {
  it('keeps valid pairs in order', () => {
    expect(
      enforceOneToOne(
        [
          { finding: 0, golden: 1 },
          { finding: 2, golden: 0 },
        ],
        3,
        2,
      ),
    ).toEqual({
      matches: [
        { finding: 0, golden: 1 },
        { finding: 2, golden: 0 },
      ],
      dropped: 0,
    });
  });

  it('drops an exact duplicate pair', () => {
    const checked = enforceOneToOne(
      [
        { finding: 1, golden: 0 },
        { finding: 1, golden: 0 },
      ],
      2,
      1,
    );
    expect(checked).toEqual({ matches: [{ finding: 1, golden: 0 }], dropped: 1 });
  });

  it('matches one finding against two golden comments once: the first pair wins', () => {
    const checked = enforceOneToOne(
      [
        { finding: 0, golden: 1 },
        { finding: 0, golden: 0 },
      ],
      1,
      2,
    );
    expect(checked).toEqual({ matches: [{ finding: 0, golden: 1 }], dropped: 1 });
  });

  it('matches one golden comment to one finding only', () => {
    const checked = enforceOneToOne(
      [
        { finding: 1, golden: 0 },
        { finding: 0, golden: 0 },
      ],
      2,
      1,
    );
    expect(checked).toEqual({ matches: [{ finding: 1, golden: 0 }], dropped: 1 });
  });

  it.each([
    ['a finding past the end', { finding: 3, golden: 0 }],
    ['a golden comment past the end', { finding: 0, golden: 2 }],
    ['a negative index', { finding: -1, golden: 0 }],
    ['a fraction', { finding: 0.5, golden: 0 }],
    ['a missing index', { finding: 0 }],
    ['a non-object', 'F0-G0'],
    ['null', null],
    ['text', { finding: 'first', golden: 0 }],
  ])('drops %s', (_what, pair) => {
    expect(enforceOneToOne([pair], 3, 2)).toEqual({ matches: [], dropped: 1 });
  });

  it('reads labels and numeric strings as indexes', () => {
    const checked = enforceOneToOne(
      [
        { finding: 'F2', golden: '[G1]' },
        { finding: '0', golden: 'g0' },
      ],
      3,
      2,
    );
    expect(checked.matches).toEqual([
      { finding: 2, golden: 1 },
      { finding: 0, golden: 0 },
    ]);
  });

  it('has nothing to match in an empty review', () => {
    expect(enforceOneToOne([{ finding: 0, golden: 0 }], 0, 2)).toEqual({ matches: [], dropped: 1 });
  });

  it('reads a non-list as no pairs', () => {
    expect(enforceOneToOne({ finding: 0, golden: 0 }, 1, 1)).toEqual({ matches: [], dropped: 0 });
  });
});

describe('judgeMatchesOf', () => {
  it('prefers the submit_matches arguments', () => {
    expect(judgeMatchesOf({ matches: [{ finding: 0, golden: 0 }] }, 'whatever')).toEqual([
      { finding: 0, golden: 0 },
    ]);
  });

  it('reads the JSON object in prose and a code fence, the last one winning', () => {
    const text = [
      'Draft: {"matches": [{"finding": 9, "golden": 9}]}',
      'Final answer:',
      '```json',
      '{"matches": [{"finding": 1, "golden": 0}]}',
      '```',
    ].join('\n');
    expect(judgeMatchesOf(undefined, text)).toEqual([{ finding: 1, golden: 0 }]);
  });

  it('repairs slightly malformed JSON', () => {
    expect(judgeMatchesOf(undefined, '{matches: [{finding: 0, golden: 1},]}')).toEqual([
      { finding: 0, golden: 1 },
    ]);
  });

  it.each([
    ['prose', 'F0 matches G1, I think.'],
    ['an empty answer', ''],
    ['an object without matches', '{"pairs": [[0, 1]]}'],
    ['matches that is not a list', '{"matches": "F0=G1"}'],
    ['a bare list', '[{"finding": 0, "golden": 1}]'],
  ])('finds nothing in %s (the case fails)', (_what, text) => {
    expect(judgeMatchesOf(undefined, text)).toBeUndefined();
  });
});
