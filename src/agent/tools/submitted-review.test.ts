import { describe, expect, it } from 'vitest';
import type { PullRequestFile } from '../../platforms/types.js';
import { buildReviewBody } from '../../review/body.js';
import { toFileDiffs } from '../../diff/diff.js';
import { DiffIndex } from '../../diff/diff-index.js';
import { filterFindings } from '../../review/filter.js';
import { parseReviewOutput } from '../../review/parse-output.js';
import {
  isHarnessText,
  sortSubmittedReview,
  SUBMITTED_ANSWER,
  SUBMITTED_MESSAGE,
  withoutHarnessText,
  type LooseComment,
} from './submitted-review.js';

// src/app.ts — RIGHT lines 10-14 are on the diff.
const files: PullRequestFile[] = [
  {
    path: 'src/app.ts',
    status: 'modified',
    additions: 2,
    deletions: 1,
    patch: ['@@ -10,4 +10,5 @@', ' c', '-d', '+a', '+a', ' c', ' c'].join('\n'),
  },
];
const index = DiffIndex.fromFiles(toFileDiffs(files));

describe('sortSubmittedReview: one comment at a time', () => {
  it.each<[string, LooseComment, string | undefined]>([
    ['a valid comment', { path: 'src/app.ts', line: 11, body: 'ok' }, undefined],
    ['a valid range', { path: 'src/app.ts', start_line: 10, line: 12, body: 'ok' }, undefined],
    ['a numeric string line', { path: 'src/app.ts', line: '11', body: 'ok' }, undefined],
    ['a lower-case side', { path: 'src/app.ts', line: 11, side: 'left', body: 'ok' }, undefined],
    [
      'line 0',
      { path: 'src/app.ts', line: 0, body: 'b' },
      '`line` 0 is not a line number (a whole number from 1)',
    ],
    [
      'a negative line',
      { path: 'src/app.ts', line: -4, body: 'b' },
      '`line` -4 is not a line number (a whole number from 1)',
    ],
    [
      'a fractional line',
      { path: 'src/app.ts', line: 1.5, body: 'b' },
      '`line` 1.5 is not a line number (a whole number from 1)',
    ],
    [
      'a textual line',
      { path: 'src/app.ts', line: 'twelve', body: 'b' },
      '`line` "twelve" is not a line number (a whole number from 1)',
    ],
    ['no line', { path: 'src/app.ts', line: null, body: 'b' }, 'it has no `line`'],
    ['an empty path', { path: '  ', line: 11, body: 'b' }, 'it names no file (`path` is empty)'],
    ['no path', { line: 11, body: 'b' }, 'it names no file (`path` is empty)'],
    [
      'start_line after line',
      { path: 'src/app.ts', start_line: 14, line: 11, body: 'b' },
      '`start_line` 14 is after `line` 11',
    ],
    [
      'start_line 0',
      { path: 'src/app.ts', start_line: 0, line: 11, body: 'b' },
      '`start_line` 0 is not a line number (a whole number from 1)',
    ],
    [
      'an unknown side',
      { path: 'src/app.ts', line: 11, side: 'MIDDLE', body: 'b' },
      '`side` "MIDDLE" is neither RIGHT nor LEFT',
    ],
  ])('%s', (_name, comment, reason) => {
    const { review, folded } = sortSubmittedReview({ summary: 's', comments: [comment] });
    expect(review.comments).toHaveLength(1);
    if (reason === undefined) {
      expect(folded).toEqual([]);
      expect(review.comments[0]?.line).toBeGreaterThan(0);
    } else {
      expect(folded).toEqual([{ index: 0, reason }]);
      expect(review.comments[0]).toMatchObject({ line: 0, body: `b\n\n_Not placed inline: ${reason}._` });
    }
  });

  it('reads a missing summary and missing comments as empty', () => {
    expect(sortSubmittedReview({})).toEqual({ review: { summary: '', comments: [] }, folded: [] });
    expect(sortSubmittedReview({ summary: null, comments: null }).review).toEqual({
      summary: '',
      comments: [],
    });
  });
});

describe('a bad finding never costs the review (tool → parse → filter → body)', () => {
  it('keeps every valid comment inline and folds each invalid one into the body with its reason', () => {
    const { review } = sortSubmittedReview({
      summary: 'Two real problems.',
      comments: [
        { path: 'src/app.ts', line: 11, side: 'RIGHT', body: 'Valid one.' },
        { path: 'src/app.ts', line: 0, body: 'Zero line.' },
        { path: 'src/app.ts', start_line: 10, line: 12, body: 'Valid range.', suggestion: 'x' },
        { path: 'src/app.ts', line: 2.5, body: 'Fractional line.' },
        { path: '', line: 11, body: 'No path.' },
        { path: 'src/app.ts', start_line: 13, line: 11, body: 'Backwards range.' },
        { path: 'src/app.ts', line: 40, body: 'Outside the diff.' },
      ],
    });
    const parsed = parseReviewOutput(review);
    if (!parsed.ok) throw new Error(parsed.error);
    const filtered = filterFindings(parsed.output.comments, index, []);
    expect(filtered.kept.map((f) => f.body)).toEqual(['Valid one.', 'Valid range.']);
    expect(filtered.rejected.map((f) => f.body.split('\n')[0])).toEqual([
      'Zero line.',
      'Fractional line.',
      'No path.',
      'Backwards range.',
      'Outside the diff.',
    ]);
    const body = buildReviewBody(parsed.output.summary, filtered.rejected);
    expect(body).toContain('Two real problems.');
    expect(body).toContain('Zero line.\n\n  _Not placed inline: `line` 0 is not a line number');
    expect(body).toContain('_Not placed inline: `line` 2.5 is not a line number');
    expect(body).toContain('_Not placed inline: it names no file (`path` is empty)._');
    expect(body).toContain('_Not placed inline: `start_line` 13 is after `line` 11._');
    expect(body).toContain('`src/app.ts:40` (RIGHT): Outside the diff.');
  });
});

describe('harness text', () => {
  it.each([
    [SUBMITTED_MESSAGE, ''],
    [SUBMITTED_ANSWER, ''],
    [`  ${SUBMITTED_MESSAGE}\n`, ''],
    [`${SUBMITTED_MESSAGE}\n${SUBMITTED_MESSAGE}`, ''],
    ['', ''],
    [`${SUBMITTED_MESSAGE}\n\nThe parser leaks memory.`, 'The parser leaks memory.'],
    ['Review submitted. The parser is fine.', 'Review submitted. The parser is fine.'],
  ])('%j → %j', (text, kept) => {
    expect(withoutHarnessText(text)).toBe(kept);
    expect(isHarnessText(text)).toBe(kept === '');
  });
});

describe('severity and confidence (§21)', () => {
  it('pass through as the model wrote them, for the review pipeline to read', () => {
    const { review } = sortSubmittedReview({
      summary: 's',
      comments: [
        { path: 'a.ts', line: 1, body: 'crash', severity: 'P0', confidence: 0.9 },
        { path: 'a.ts', line: 2, body: 'nit', severity: null, confidence: null },
      ],
    });
    expect(review.comments[0]).toMatchObject({ severity: 'P0', confidence: 0.9 });
    expect(review.comments[1]).not.toHaveProperty('severity');
    const parsed = parseReviewOutput(review);
    expect(parsed.ok && parsed.output.comments.map((c) => [c.severity, c.confidence])).toEqual([
      ['P0', 0.9],
      ['P2', null],
    ]);
  });
});
