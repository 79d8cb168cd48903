import { describe, expect, it } from 'vitest';
import { sarifErrors } from '../../test/fixtures/sarif/validate-sarif.js';
import type { ExecuteReviewResult } from '../review/types.js';
import { newFilePatch } from './parse-git-diff.js';
import { newLineOfRemoved, toSarif } from './sarif.js';

const result: ExecuteReviewResult = {
  summary: 'ok',
  findings: [
    {
      path: 'a b/ü.ts',
      line: 4,
      startLine: 2,
      side: 'RIGHT',
      severity: 'P1' as const,
      confidence: 0.8,
      body: 'range',
      suggestion: 'x();',
    },
    { path: 'a b/ü.ts', line: 3, side: 'LEFT', severity: 'P2' as const, confidence: null, body: 'removed' },
  ],
  rejected: [
    { path: 'c.ts', line: 40, side: 'RIGHT', severity: 'P3' as const, confidence: null, body: 'elsewhere' },
  ],
  body: '',
  sessionId: 's',
  model: 'm',
  usage: { inputTokens: 1, outputTokens: 2 },
  durationMs: 3,
  warnings: ['model x is deprecated'],
};
const files = [
  {
    path: 'a b/ü.ts',
    status: 'modified' as const,
    additions: 1,
    deletions: 1,
    patch: '@@ -1,5 +1,5 @@\n l1\n l2\n-l3\n+L3\n l4\n l5',
  },
];

describe('toSarif', () => {
  it('writes a log the SARIF 2.1.0 schema accepts, with percent-encoded relative URIs', () => {
    const log = toSarif(result, { toolVersion: '1.2.3', root: '/repo dir', files });
    expect(sarifErrors(log)).toEqual([]);
    const run = log.runs[0]!;
    expect(run.originalUriBaseIds).toEqual({ SRCROOT: { uri: 'file:///repo%20dir/' } });
    // Levels by severity (§21): P1 error, P2 warning, P3 note.
    expect(run.results.map((r) => [r.level, r.locations![0]!.physicalLocation])).toEqual([
      [
        'error',
        {
          artifactLocation: { uri: 'a%20b/%C3%BC.ts', uriBaseId: 'SRCROOT' },
          region: { startLine: 2, endLine: 4 },
        },
      ],
      [
        'warning',
        {
          artifactLocation: { uri: 'a%20b/%C3%BC.ts', uriBaseId: 'SRCROOT' },
          region: { startLine: 3, endLine: 3 },
        },
      ],
      [
        'note',
        { artifactLocation: { uri: 'c.ts', uriBaseId: 'SRCROOT' }, region: { startLine: 40, endLine: 40 } },
      ],
    ]);
    expect(run.results.map((r) => [r.properties.severity, r.properties.confidence])).toEqual([
      ['P1', 0.8],
      ['P2', null],
      ['P3', null],
    ]);
    expect(run.invocations[0]).toMatchObject({
      toolExecutionNotifications: [{ message: { text: 'model x is deprecated' } }],
    });
  });

  it('the schema check fails on what SARIF forbids (so the e2e check can fail)', () => {
    const log = toSarif(result, { toolVersion: '1.2.3', files });
    const bad = structuredClone(log) as unknown as {
      runs: Array<{ results: Array<Record<string, unknown>> }>;
    };
    bad.runs[0]!.results[0]!.level = 'fatal';
    expect(sarifErrors(bad)).not.toEqual([]);
    expect(sarifErrors({ ...log, version: '2.0.0' })).not.toEqual([]);
  });
});

describe('toSarif with odd lines and paths (notes not in the diff)', () => {
  const odd = (rejected: ExecuteReviewResult['rejected']): ExecuteReviewResult => ({
    ...result,
    findings: [],
    rejected,
  });
  const locationsOf = (log: ReturnType<typeof toSarif>) => log.runs[0]!.results.map((r) => r.locations);

  it('a line that is not an integer >= 1 gives a file-level location (no region), valid SARIF', () => {
    const log = toSarif(
      odd([
        {
          path: 'c.ts',
          line: 0,
          side: 'RIGHT',
          severity: 'P2' as const,
          confidence: null,
          body: 'missing line',
        },
        {
          path: 'c.ts',
          line: 3.5,
          side: 'RIGHT',
          severity: 'P2' as const,
          confidence: null,
          body: 'fraction',
          suggestion: 'y();',
        },
        {
          path: 'c.ts',
          line: -2,
          side: 'LEFT',
          severity: 'P2' as const,
          confidence: null,
          body: 'negative removed',
        },
        {
          path: 'c.ts',
          line: 5,
          startLine: 0.5,
          side: 'RIGHT',
          severity: 'P2' as const,
          confidence: null,
          body: 'fractional start',
        },
      ]),
      { toolVersion: '1.2.3', files },
    );
    expect(sarifErrors(log)).toEqual([]);
    const fileLevel = [{ physicalLocation: { artifactLocation: { uri: 'c.ts', uriBaseId: 'SRCROOT' } } }];
    expect(locationsOf(log)).toEqual([fileLevel, fileLevel, fileLevel, fileLevel]);
    expect(log.runs[0]!.results[1]!.fixes).toBeUndefined();
  });

  it('a start line after the line gives the ordered range, also for the fix', () => {
    const log = toSarif(
      odd([
        {
          path: 'c.ts',
          line: 2,
          startLine: 9,
          side: 'RIGHT',
          severity: 'P2' as const,
          confidence: null,
          body: 'reversed',
          suggestion: 'z();',
        },
      ]),
      { toolVersion: '1.2.3', files },
    );
    expect(sarifErrors(log)).toEqual([]);
    const [res] = log.runs[0]!.results;
    expect(res!.locations![0]!.physicalLocation.region).toEqual({ startLine: 2, endLine: 9 });
    expect(res!.fixes).toMatchObject([
      { artifactChanges: [{ replacements: [{ deletedRegion: { startLine: 2, endLine: 9 } }] }] },
    ]);
  });

  it('an empty path gives a result without locations', () => {
    const log = toSarif(
      odd([{ path: '', line: 4, side: 'RIGHT', severity: 'P2' as const, confidence: null, body: 'nowhere' }]),
      {
        toolVersion: '1.2.3',
        files,
      },
    );
    expect(sarifErrors(log)).toEqual([]);
    expect(log.runs[0]!.results[0]!.locations).toBeUndefined();
    expect(log.runs[0]!.results[0]!.message.text).toContain('nowhere');
  });
});

describe('newLineOfRemoved', () => {
  it.each([
    [3, 3], // before the next kept line
    [99, 1], // not a removed line of the patch
  ])('old line %i -> new line %i', (oldLine, newLine) => {
    expect(newLineOfRemoved(files[0], oldLine)).toBe(newLine);
  });
  it('a removal at the end of the file points at the last kept line', () => {
    expect(newLineOfRemoved({ ...files[0]!, patch: '@@ -1,3 +1,2 @@\n a\n b\n-c' }, 3)).toBe(2);
  });
});

describe('newFilePatch', () => {
  it.each([
    ['', undefined],
    ['one\n', '@@ -0,0 +1 @@\n+one'],
    ['a\nb', '@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file'],
  ])('%j', (content, patch) => {
    expect(newFilePatch(content)).toBe(patch);
  });
});
