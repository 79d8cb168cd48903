import { describe, expect, it } from 'vitest';
import type { ExistingComment, PullRequestFile } from '../platforms/types.js';
import { renderInlineBody } from './body.js';
import { toFileDiffs } from '../diff/diff.js';
import { DiffIndex } from '../diff/diff-index.js';
import { filterFindings } from './filter.js';
import type { Finding, ProposedComment } from './types.js';

// src/app.ts — RIGHT: 10-14 and 51-52; LEFT: 10-13 and 50-52.
const APP = [
  '@@ -10,4 +10,5 @@',
  ' c',
  '-d',
  '+a',
  '+a',
  ' c',
  ' c',
  '@@ -50,3 +51,2 @@',
  ' c',
  '-d',
  ' c',
].join('\n');

const files: PullRequestFile[] = [
  { path: 'src/app.ts', status: 'modified', additions: 2, deletions: 2, patch: APP },
  { path: 'src/gone.ts', status: 'removed', additions: 0, deletions: 2, patch: '@@ -1,2 +0,0 @@\n-a\n-b' },
  {
    path: 'src/new-name.ts',
    previousPath: 'src/old-name.ts',
    status: 'renamed',
    additions: 1,
    deletions: 1,
    patch: '@@ -3,1 +3,1 @@\n-x\n+y',
  },
  { path: 'logo.png', status: 'modified', additions: 0, deletions: 0 },
];
const index = DiffIndex.fromFiles(toFileDiffs(files));

function proposed(overrides: Partial<ProposedComment>): ProposedComment {
  return {
    path: 'src/app.ts',
    line: 11,
    side: 'RIGHT',
    body: 'Check this.',
    severity: 'P2',
    confidence: null,
    ...overrides,
  };
}

const suggest = (text: string, lines: number): string => `\`\`\`suggestion lines=${lines}\n${text}\n\`\`\``;

describe('filterFindings: kept or rejected', () => {
  it('keeps the severity and confidence of each comment (§21)', () => {
    const result = filterFindings(
      [
        proposed({ severity: 'P0', confidence: 0.9 }),
        proposed({ line: 999, severity: 'P3', confidence: null }),
      ],
      index,
      [],
    );
    expect(result.kept).toEqual([expect.objectContaining({ severity: 'P0', confidence: 0.9 })]);
    expect(result.rejected).toEqual([expect.objectContaining({ severity: 'P3', confidence: null })]);
  });

  it.each<{
    name: string;
    input: Partial<ProposedComment>;
    bucket: 'kept' | 'rejected';
    finding?: Partial<Finding>;
  }>([
    { name: 'added line, RIGHT', input: {}, bucket: 'kept' },
    {
      name: 'missing side defaults to RIGHT',
      input: { side: undefined },
      bucket: 'kept',
      finding: { side: 'RIGHT' },
    },
    {
      name: 'multi-line range within one hunk',
      input: { startLine: 10, line: 14 },
      bucket: 'kept',
      finding: { startLine: 10 },
    },
    {
      name: 'startLine equal to line is dropped',
      input: { startLine: 11 },
      bucket: 'kept',
      finding: { startLine: undefined },
    },
    { name: 'startLine after line', input: { startLine: 13, line: 11 }, bucket: 'rejected' },
    { name: 'range crossing hunks', input: { startLine: 14, line: 51 }, bucket: 'rejected' },
    { name: 'range partly off the diff', input: { startLine: 13, line: 16 }, bucket: 'rejected' },
    { name: 'line off the diff', input: { line: 30 }, bucket: 'rejected' },
    { name: 'removed line, LEFT', input: { side: 'LEFT', line: 51 }, bucket: 'kept' },
    { name: 'LEFT number that only exists on RIGHT', input: { side: 'LEFT', line: 14 }, bucket: 'rejected' },
    {
      name: 'suggestion on LEFT is dropped, comment kept',
      input: { side: 'LEFT', line: 11, suggestion: 'x' },
      bucket: 'kept',
      finding: { suggestion: undefined },
    },
    {
      name: 'suggestion on LEFT off the diff is dropped too',
      input: { side: 'LEFT', line: 99, suggestion: 'x' },
      bucket: 'rejected',
      finding: { suggestion: undefined },
    },
    {
      name: 'suggestion on RIGHT is kept',
      input: { suggestion: 'fixed();' },
      bucket: 'kept',
      finding: { suggestion: 'fixed();' },
    },
    { name: 'unknown path', input: { path: 'src/other.ts' }, bucket: 'rejected' },
    {
      name: '"./" prefix resolved to the diff path',
      input: { path: './src/app.ts' },
      bucket: 'kept',
      finding: { path: 'src/app.ts' },
    },
    {
      name: 'git "b/" prefix resolved',
      input: { path: 'b/src/app.ts' },
      bucket: 'kept',
      finding: { path: 'src/app.ts' },
    },
    { name: 'line 0', input: { line: 0 }, bucket: 'rejected' },
    { name: 'negative line', input: { line: -3 }, bucket: 'rejected' },
    { name: 'fractional line', input: { line: 10.5 }, bucket: 'rejected' },
    { name: 'fractional startLine', input: { startLine: 10.5 }, bucket: 'rejected' },
    { name: 'deleted file, LEFT', input: { path: 'src/gone.ts', side: 'LEFT', line: 2 }, bucket: 'kept' },
    { name: 'deleted file, RIGHT', input: { path: 'src/gone.ts', line: 1 }, bucket: 'rejected' },
    {
      name: 'renamed file, LEFT uses the new path',
      input: { path: 'src/new-name.ts', side: 'LEFT', line: 3 },
      bucket: 'kept',
    },
    {
      name: 'renamed file, old path',
      input: { path: 'src/old-name.ts', side: 'LEFT', line: 3 },
      bucket: 'rejected',
    },
    { name: 'binary file', input: { path: 'logo.png', line: 1 }, bucket: 'rejected' },
  ])('$name → $bucket', ({ input, bucket, finding }) => {
    const result = filterFindings([proposed(input)], index, []);
    expect(result.duplicates).toEqual([]);
    expect(result[bucket]).toHaveLength(1);
    expect(result[bucket === 'kept' ? 'rejected' : 'kept']).toEqual([]);
    const got = result[bucket][0]!;
    expect(got.side === 'RIGHT' || got.side === 'LEFT').toBe(true);
    for (const [key, value] of Object.entries(finding ?? {})) {
      if (value === undefined) expect(got).not.toHaveProperty(key);
      else expect(got).toHaveProperty(key, value);
    }
  });

  it('keeps the order of the proposed comments in each list and loses none', () => {
    const input = [
      proposed({ line: 30, body: 'a' }),
      proposed({ body: 'b' }),
      proposed({ line: 40, body: 'c' }),
      proposed({ line: 12, body: 'd' }),
    ];
    const result = filterFindings(input, index, []);
    expect(result.kept.map((f) => f.body)).toEqual(['b', 'd']);
    expect(result.rejected.map((f) => f.body)).toEqual(['a', 'c']);
  });

  it('discards comments with neither body nor suggestion', () => {
    const result = filterFindings(
      [proposed({ body: '  \n ' }), proposed({ body: '', suggestion: 'x();' })],
      index,
      [],
    );
    expect(result.kept).toEqual([
      {
        path: 'src/app.ts',
        line: 11,
        side: 'RIGHT',
        body: '',
        suggestion: 'x();',
        severity: 'P2',
        confidence: null,
      },
    ]);
    expect(result.rejected).toEqual([]);
  });
});

function botComment(overrides: Partial<ExistingComment>): ExistingComment {
  return {
    id: '1',
    kind: 'review_comment',
    authorUsername: 'reviewbot[bot]',
    body: 'Check this.',
    path: 'src/app.ts',
    line: 11,
    side: 'RIGHT',
    createdAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

describe('filterFindings: duplicates', () => {
  const renderBody = (f: Finding): string => renderInlineBody(f, suggest);

  it.each<{
    name: string;
    input: Partial<ProposedComment>;
    existing: Partial<ExistingComment>;
    duplicate: boolean;
  }>([
    { name: 'same path, line and body', input: {}, existing: {}, duplicate: true },
    {
      name: 'body differs only in surrounding whitespace and CRLF',
      input: { body: '\n Check\r\nthis. \n' },
      existing: { body: 'Check\nthis.' },
      duplicate: true,
    },
    { name: 'same body on another line', input: {}, existing: { line: 12 }, duplicate: false },
    { name: 'same body in another file', input: {}, existing: { path: 'src/gone.ts' }, duplicate: false },
    {
      name: 'same body as a conversation comment (no path/line)',
      input: {},
      existing: { kind: 'issue_comment', path: undefined, line: undefined },
      duplicate: false,
    },
    { name: 'different body', input: { body: 'Something else.' }, existing: {}, duplicate: false },
    {
      name: 'posted body includes the rendered suggestion',
      input: { suggestion: 'fixed();' },
      existing: { body: '**P2** Check this.\n\n```suggestion lines=1\nfixed();\n```' },
      duplicate: true,
    },
    {
      name: 'rendered suggestion differs',
      input: { suggestion: 'other();' },
      existing: { body: 'Check this.\n\n```suggestion lines=1\nfixed();\n```' },
      duplicate: false,
    },
    {
      name: 'a rejected note repeated on the same path and line',
      input: { line: 30 },
      existing: { line: 30 },
      duplicate: true,
    },
  ])('$name → duplicate: $duplicate', ({ input, existing, duplicate }) => {
    const result = filterFindings([proposed(input)], index, [botComment(existing)], { renderBody });
    expect(result.duplicates).toHaveLength(duplicate ? 1 : 0);
    expect(result.kept.length + result.rejected.length).toBe(duplicate ? 0 : 1);
  });

  it('drops exact repeats within the proposed list, keeping the first', () => {
    const a = proposed({ body: 'First.' });
    const result = filterFindings(
      [
        a,
        proposed({ body: 'Second.' }),
        { ...a },
        proposed({ body: ' First. ' }),
        proposed({ body: 'First.', side: 'LEFT' }),
      ],
      index,
      [],
    );
    expect(result.kept.map((f) => `${f.side}:${f.body}`)).toEqual([
      'RIGHT:First.',
      'RIGHT:Second.',
      'LEFT:First.',
    ]);
    expect(result.duplicates).toHaveLength(2);
  });
});
