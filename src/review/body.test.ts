import { describe, expect, it } from 'vitest';
import { buildReviewBody, lineCountOf, renderInlineBody } from './body.js';
import { fencedBlock } from '../diff/markdown.js';
import { renderGitHubSuggestion } from '../platforms/github/suggestion.js';
import type { Finding } from './types.js';

const finding = (overrides: Partial<Finding>): Finding => ({
  path: 'src/a.ts',
  line: 12,
  side: 'RIGHT',
  body: 'Off by one.',
  severity: 'P2',
  confidence: null,
  ...overrides,
});

/** A GitHub-like renderer that records what it was asked for. */
const githubSuggestion = (text: string, lines: number): string =>
  `\`\`\`suggestion\n${text}\n\`\`\`<!-- ${lines} -->`;

describe('renderInlineBody', () => {
  it.each<{ name: string; input: Partial<Finding>; expected: string }>([
    { name: 'body only, trimmed', input: { body: '  Off by one.\n' }, expected: '**P2** Off by one.' },
    {
      name: 'the severity opens the first line (§21)',
      input: { severity: 'P0', body: 'Drops the table.\nSee the migration.' },
      expected: '**P0** Drops the table.\nSee the migration.',
    },
    {
      name: 'single-line suggestion',
      input: { suggestion: 'i < n' },
      expected: '**P2** Off by one.\n\n```suggestion\ni < n\n```<!-- 1 -->',
    },
    {
      name: 'multi-line suggestion replaces startLine..line',
      input: { startLine: 10, suggestion: 'a\nb' },
      expected: '**P2** Off by one.\n\n```suggestion\na\nb\n```<!-- 3 -->',
    },
    {
      name: 'LEFT suggestion is never rendered',
      input: { side: 'LEFT', suggestion: 'x' },
      expected: '**P2** Off by one.',
    },
    {
      name: 'suggestion without body',
      input: { body: ' ', suggestion: 'x' },
      expected: '**P2**\n\n```suggestion\nx\n```<!-- 1 -->',
    },
  ])('$name', ({ input, expected }) => {
    expect(renderInlineBody(finding(input), githubSuggestion)).toBe(expected);
  });

  it.each<[Partial<Finding>, number]>([
    [{}, 1],
    [{ startLine: 12 }, 1],
    [{ startLine: 8 }, 5],
    [{ startLine: 20 }, 1],
  ])('lineCountOf(%o) = %i', (input, expected) => {
    expect(lineCountOf(finding(input))).toBe(expected);
  });
});

describe('buildReviewBody', () => {
  it('is the trimmed summary when nothing was rejected', () => {
    expect(buildReviewBody('  All good.\n', [])).toBe('All good.');
    expect(buildReviewBody('', [])).toBe('');
  });

  it('puts the verdict line right under the summary, before the notes (§21)', () => {
    const body = buildReviewBody('Summary.', [finding({})], {
      before: ['Notice.'],
      afterSummary: ['**Verdict:** non-blocking — P2 ×1'],
      after: ['Receipt.'],
    });
    expect(body.split('\n\n').slice(0, 4)).toEqual([
      'Notice.',
      'Summary.',
      '**Verdict:** non-blocking — P2 ×1',
      '### Additional notes (not in diff)',
    ]);
  });

  it('lists rejected findings under "Additional notes (not in diff)" with path:line (side)', () => {
    const body = buildReviewBody('Summary.', [
      finding({}),
      finding({
        path: 'src/b.ts',
        line: 20,
        startLine: 18,
        side: 'LEFT',
        body: 'Removed guard.\nWas it needed?',
        severity: 'P1',
      }),
      finding({ path: 'src/c.ts', line: 0, body: 'Whole file: consider splitting.' }),
      finding({ path: '', line: 0, body: 'General remark.' }),
    ]);
    expect(body).toBe(
      [
        'Summary.',
        '',
        '### Additional notes (not in diff)',
        '',
        '- **P2** `src/a.ts:12` (RIGHT): Off by one.',
        '',
        '- **P1** `src/b.ts:18-20` (LEFT): Removed guard.',
        '  Was it needed?',
        '',
        '- **P2** `src/c.ts` (RIGHT): Whole file: consider splitting.',
        '',
        '- **P2** `general` (RIGHT): General remark.',
      ].join('\n'),
    );
  });

  it('shows a RIGHT suggestion as a plain fenced block that its own backticks cannot close', () => {
    const body = buildReviewBody('', [finding({ suggestion: 'const s = ```;\n' })]);
    expect(body).toBe(
      [
        '### Additional notes (not in diff)',
        '',
        '- **P2** `src/a.ts:12` (RIGHT): Off by one.',
        '',
        '  Suggested replacement:',
        '',
        '  ````',
        '  const s = ```;',
        '  ````',
      ].join('\n'),
    );
  });

  it('keeps a body with its own code fence inside the list item', () => {
    const body = buildReviewBody('', [finding({ body: 'Use:\n\n```ts\nx();\n```' })]);
    expect(body.split('\n').slice(2)).toEqual([
      '- **P2** `src/a.ts:12` (RIGHT): Use:',
      '',
      '  ```ts',
      '  x();',
      '  ```',
    ]);
  });
});

const J = '\u2060';

describe('mentions and hostile paths in posted review text', () => {
  it('neutralises mentions in an inline body and leaves its suggestion byte-exact', () => {
    const suggestion = 'const owner = "@acme/security-team"; // @{123}';
    const body = renderInlineBody(
      finding({ body: 'cc @acme/security-team and @{123}; `@Inject` is fine; mail a@b.com.', suggestion }),
      renderGitHubSuggestion,
    );
    expect(body).toBe(
      `**P2** cc @${J}acme/security-team and @${J}{123}; \`@Inject\` is fine; mail a@b.com.\n\n` +
        `\`\`\`suggestion\n${suggestion}\n\`\`\``,
    );
  });

  it('neutralises mentions in the summary and the notes, not in their code', () => {
    const body = buildReviewBody('Escalate to @{123}; see `@Override`.', [
      finding({ body: 'Ask @acme/security-team.', suggestion: '@Override\nvoid run() {}' }),
    ]);
    expect(body).toContain(`Escalate to @${J}{123}; see \`@Override\`.`);
    expect(body).toContain(`(RIGHT): Ask @${J}acme/security-team.`);
    expect(body).toContain('  ```\n  @Override\n  void run() {}\n  ```');
  });

  it('keeps a hostile path of a note in one code span on its list line', () => {
    const path = 'x\n\n</details>\n\n![img](http://x.invalid/p.png) @team `y`';
    const body = buildReviewBody('', [finding({ path, body: 'Note.' })]);
    expect(body.split('\n')).toEqual([
      '### Additional notes (not in diff)',
      '',
      '- **P2** ``x␤␤</details>␤␤![img](http://x.invalid/p.png) @team `y`:12`` (RIGHT): Note.',
    ]);
  });
});

describe('fencedBlock', () => {
  it.each<[string, string, string]>([
    ['x();', '', '```\nx();\n```'],
    ['x();\n', 'ts', '```ts\nx();\n```'],
    ['a\r\nb', '', '```\na\nb\n```'],
    ['```\nnested\n```', '', '````\n```\nnested\n```\n````'],
  ])('%j (%s)', (content, info, expected) => {
    expect(fencedBlock(content, info)).toBe(expected);
  });
});
