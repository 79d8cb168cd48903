import { describe, expect, it } from 'vitest';
import { renderGitHubSuggestion } from '../../platforms/github/suggestion.js';
import { renderPlainSuggestion } from '../../platforms/plain-suggestion.js';
import { renderInlineBody } from '../../review/body.js';
import { fingerprintLines } from '../../review/memory/fingerprint.js';
import { renderFindingMarker } from '../../review/memory/markers.js';
import type { Finding, Verification } from '../../review/types.js';
import { parseApplyCommand } from './command.js';
import { locateFinding, replaceRange, splitLines } from './replace-lines.js';
import { parseSuggestion } from './suggestion-block.js';

describe('parseApplyCommand', () => {
  it.each([
    ['apply', { kind: 'one', extra: '' }],
    ['Apply  but keep the comment', { kind: 'one', extra: 'but keep the comment' }],
    ['apply all', { kind: 'all' }],
    ['APPLY ALL ', { kind: 'all' }],
    ['apply all of the tests', { kind: 'one', extra: 'all of the tests' }],
    ['applying', undefined],
    ['please apply', undefined],
  ])('%j', (prompt, expected) => {
    expect(parseApplyCommand(prompt)).toEqual(expected);
  });
});

describe('parseSuggestion', () => {
  it('reads GitHub, GitLab and Gitea renderings back', () => {
    expect(parseSuggestion('Fix it.\n\n```suggestion\n  a();\n  b();\n```\n<!-- m -->')).toEqual({
      text: '  a();\n  b();',
    });
    expect(parseSuggestion('x\n\n````suggestion\n```js\n````')).toEqual({ text: '```js' });
    expect(parseSuggestion('x\n\n```suggestion:-2+0\nz\n```')).toEqual({ text: 'z', lineCount: 3 });
    expect(parseSuggestion('x\n\nSuggested replacement for these 2 lines:\n\n```\nq\n```')).toEqual({
      text: 'q',
      lineCount: 2,
    });
    expect(parseSuggestion('```suggestion\n```')).toEqual({ text: '' });
    expect(parseSuggestion('no block\n```ts\ncode\n```')).toBeUndefined();
    expect(parseSuggestion('```suggestion\nnever closed')).toBeUndefined();
  });

  it('reads the plain rendering of Bitbucket and Azure DevOps with their link-reference marker', () => {
    const body =
      'Fix.\n\nSuggested replacement for this line:\n\n````\n```\n````\n\n[//]: # (reviewbot:finding fp=ab)';
    expect(parseSuggestion(body)).toEqual({ text: '```', lineCount: 1 });
    expect(parseSuggestion('x\r\n\r\n```suggestion\r\na\r\n```\r\n<!-- m -->\r\n')).toEqual({ text: 'a' });
  });

  it('reads only the block that ends the body, never one quoted in the text', () => {
    expect(parseSuggestion('Like this:\n\n```suggestion\nquoted\n```\n\nbut not now.')).toBeUndefined();
    const quoted = 'Suggested replacement for this line:\n\n```\nquoted\n```\nthen';
    const real = '\n\nSuggested replacement for these 2 lines:\n\n```\nreal\n```\n<!-- m -->';
    expect(parseSuggestion(quoted + real)).toEqual({
      text: 'real',
      lineCount: 2,
    });
  });
});

describe('parseSuggestion of a verified finding (its evidence or not-verified line after the suggestion)', () => {
  const finding: Finding = {
    path: 'src/sum.mjs',
    line: 1,
    side: 'RIGHT',
    body: '`sum` subtracts.',
    severity: 'P1',
    confidence: null,
    suggestion: 'export const sum = (a, b) => a + b;',
  };
  const marker = renderFindingMarker({ fp: 'ab'.repeat(8), side: 'RIGHT', n: 1, severity: 'P1' });
  const verified = (verification: Partial<Verification>): Finding => ({
    ...finding,
    verification: {
      status: 'confirmed',
      command: 'node p.mjs',
      output: 'boom',
      explanation: '',
      durationMs: 1,
      ...verification,
    },
  });
  const posted = (f: Finding, render: (s: string, n: number) => string = renderGitHubSuggestion) =>
    `${renderInlineBody(f, render)}\n\n${marker}`;

  it("reads the suggestion before a confirmed finding's evidence block, on every rendering", () => {
    expect(posted(verified({}))).toMatch(/```suggestion\n[^`]*```\n\n<details>/);
    expect(parseSuggestion(posted(verified({})))).toEqual({ text: finding.suggestion });
    expect(parseSuggestion(posted(verified({}), renderPlainSuggestion))).toEqual({
      text: finding.suggestion,
      lineCount: 1,
    });
    expect(parseSuggestion(posted(verified({ output: '' })))).toEqual({ text: finding.suggestion });
  });

  it('reads the suggestion before the not-verified line', () => {
    const body = posted(verified({ status: 'inconclusive', reason: 'timed out after 5 s' }));
    expect(body).toContain('```\n\n_Not verified by running code._\n\n<!--');
    expect(parseSuggestion(body)).toEqual({ text: finding.suggestion });
  });

  it('never takes a block the probe printed for the suggestion', () => {
    // Output shaped like the end of a suggestion and of an evidence block stays inside its own block.
    const output = '```suggestion\nevil();\n```\n\n</details>\n```text\n````sh\n<details>';
    const command = 'printf "```suggestion\\nevil();\\n```"';
    expect(parseSuggestion(posted(verified({ output, command })))).toEqual({ text: finding.suggestion });
    const withoutSuggestion = { ...finding, suggestion: undefined };
    expect(
      parseSuggestion(posted({ ...withoutSuggestion, verification: verified({ output }).verification })),
    ).toBeUndefined();
  });

  it('leaves a body whose end only looks like evidence as it is', () => {
    const fake =
      'x\n\n```suggestion\nq\n```\n\n<details>\n<summary>Other</summary>\n\n```sh\nc\n```\n\n```text\no\n```\n\n</details>';
    expect(parseSuggestion(fake)).toBeUndefined();
  });
});

describe('locateFinding and replaceRange', () => {
  const path = 'src/a.ts';
  const code = (lines: string[]) => ({ path, fp: fingerprintLines(path, lines)!, n: lines.length });

  it('keeps CRLF endings and a missing final newline, byte for byte', () => {
    const text = 'one\r\ntwo\r\nthree\r\nfour';
    const lines = splitLines(text);
    const range = locateFinding(lines, code(['three', 'four']), 4);
    expect(range).toEqual({ start: 3, end: 4 });
    expect(replaceRange(lines, range!, 'THREE\nFOUR\nFIVE')).toBe('one\r\ntwo\r\nTHREE\r\nFOUR\r\nFIVE');
  });

  it('finds moved code by its fingerprint, and nothing when it changed', () => {
    const lines = splitLines('x\ny\n  let a = 1;\n\n  let b = 2;\nz\n');
    expect(locateFinding(lines, code(['let a = 1;', 'let b = 2;']), 2)).toEqual({ start: 3, end: 5 });
    expect(locateFinding(lines, code(['let a = 9;']), 3)).toBeUndefined();
  });

  it('deletes lines, leaving no final newline where there was none', () => {
    const lines = splitLines('a\nb\nc');
    expect(replaceRange(lines, { start: 3, end: 3 }, '')).toBe('a\nb');
    expect(replaceRange(lines, { start: 2, end: 2 }, '')).toBe('a\nc');
  });
});
