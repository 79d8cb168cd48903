import { describe, expect, it } from 'vitest';
import { parseReviewOutput } from './parse-output.js';
import type { AgentReviewOutput } from './types.js';

const REVIEW = {
  summary: 'Looks fine overall.',
  comments: [{ path: 'src/a.ts', line: 12, side: 'RIGHT', body: 'Off by one.' }],
};
const JSON_TEXT = JSON.stringify(REVIEW);
const EXPECTED: AgentReviewOutput = {
  summary: 'Looks fine overall.',
  comments: [
    { path: 'src/a.ts', line: 12, side: 'RIGHT', body: 'Off by one.', severity: 'P2', confidence: null },
  ],
};

describe('parseReviewOutput: finding the object', () => {
  it.each<{ name: string; input: unknown; repaired: boolean }>([
    { name: 'the submit_review arguments as an object', input: REVIEW, repaired: false },
    { name: 'plain JSON text', input: JSON_TEXT, repaired: false },
    { name: 'JSON with surrounding whitespace', input: `\n\n  ${JSON_TEXT}\n`, repaired: false },
    {
      name: 'a ```json fence with prose around it',
      input: `Here is my review:\n\n\`\`\`json\n${JSON_TEXT}\n\`\`\`\nThanks!`,
      repaired: false,
    },
    { name: 'a bare ``` fence', input: `\`\`\`\n${JSON_TEXT}\n\`\`\``, repaired: false },
    {
      name: 'an object inside prose, no fence',
      input: `I reviewed it. ${JSON_TEXT} Let me know.`,
      repaired: false,
    },
    {
      name: 'prose with braces before the object',
      input: `Checked the {config} and the map { a: 1 } usage.\n${JSON_TEXT}`,
      repaired: false,
    },
    {
      name: 'an unbalanced brace in prose before the object',
      input: `The loop opens a { but never closes it.\n${JSON_TEXT}`,
      repaired: false,
    },
    {
      name: 'a draft example followed by the final answer (last wins)',
      input: `Format: {"summary": "example", "comments": []}\nFinal:\n${JSON_TEXT}`,
      repaired: false,
    },
    { name: 'a single-key wrapper object', input: { review: REVIEW }, repaired: false },
    {
      name: 'trailing commas and single quotes (repaired)',
      input: `{'summary': 'Looks fine overall.', 'comments': [{'path': 'src/a.ts', 'line': 12, 'side': 'RIGHT', 'body': 'Off by one.',},],}`,
      repaired: true,
    },
    {
      name: 'truncated JSON (repaired)',
      input: `\`\`\`json\n{"summary": "Looks fine overall.", "comments": [{"path": "src/a.ts", "line": 12, "side": "RIGHT", "body": "Off by one."}`,
      repaired: true,
    },
    {
      name: 'unquoted keys and a comment (repaired)',
      input: `{summary: "Looks fine overall.", // note\n comments: [{path: "src/a.ts", line: 12, side: "RIGHT", body: "Off by one."}]}`,
      repaired: true,
    },
  ])('$name', ({ input, repaired }) => {
    expect(parseReviewOutput(input)).toEqual({ ok: true, output: EXPECTED, repaired });
  });

  it('prefers valid JSON over an earlier or later object that needed repair', () => {
    const text = `${JSON_TEXT}\nand a broken one: {"summary": "other", "comments": [}`;
    expect(parseReviewOutput(text)).toEqual({ ok: true, output: EXPECTED, repaired: false });
  });
});

describe('parseReviewOutput: lenient validation', () => {
  it.each<{ name: string; comment: Record<string, unknown>; expected: Record<string, unknown> }>([
    { name: 'lowercase side', comment: { side: 'left' }, expected: { side: 'LEFT' } },
    { name: 'missing side → RIGHT', comment: { side: undefined }, expected: { side: 'RIGHT' } },
    { name: 'null side → RIGHT', comment: { side: null }, expected: { side: 'RIGHT' } },
    { name: 'start_line', comment: { start_line: 10 }, expected: { startLine: 10 } },
    { name: 'startLine', comment: { startLine: 10 }, expected: { startLine: 10 } },
    { name: 'null start_line', comment: { start_line: null }, expected: { startLine: undefined } },
    {
      name: 'numeric strings',
      comment: { line: '12', start_line: ' 9 ' },
      expected: { line: 12, startLine: 9 },
    },
    { name: 'line as a "10-12" range', comment: { line: '10-12' }, expected: { line: 12, startLine: 10 } },
    {
      name: 'unknown keys ignored, an unknown severity is P2',
      comment: { severity: 'high', category: 'bug' },
      expected: { severity: 'P2', category: undefined },
    },
    {
      name: 'no severity → P2, no confidence → null',
      comment: {},
      expected: { severity: 'P2', confidence: null },
    },
    { name: 'severity P0', comment: { severity: 'P0' }, expected: { severity: 'P0' } },
    { name: 'severity in lower case', comment: { severity: ' p1 ' }, expected: { severity: 'P1' } },
    { name: 'severity as a digit', comment: { severity: 3 }, expected: { severity: 'P3' } },
    { name: 'severity P4 → P2', comment: { severity: 'P4' }, expected: { severity: 'P2' } },
    { name: 'confidence', comment: { confidence: 0.8 }, expected: { confidence: 0.8 } },
    { name: 'confidence as text', comment: { confidence: '0.25' }, expected: { confidence: 0.25 } },
    { name: 'confidence as a percentage', comment: { confidence: '85%' }, expected: { confidence: 0.85 } },
    { name: 'confidence over 1 → null', comment: { confidence: 7 }, expected: { confidence: null } },
    { name: 'confidence as a word → null', comment: { confidence: 'high' }, expected: { confidence: null } },
    { name: 'null suggestion', comment: { suggestion: null }, expected: { suggestion: undefined } },
    { name: 'empty suggestion means none', comment: { suggestion: '' }, expected: { suggestion: undefined } },
    {
      name: 'suggestion kept verbatim',
      comment: { suggestion: '  x();\n' },
      expected: { suggestion: '  x();\n' },
    },
    { name: 'path trimmed', comment: { path: ' src/a.ts ' }, expected: { path: 'src/a.ts' } },
    {
      name: 'missing line kept as 0 (the filter folds it into the body)',
      comment: { line: undefined },
      expected: { line: 0 },
    },
    { name: 'fractional line kept for the filter', comment: { line: 12.5 }, expected: { line: 12.5 } },
  ])('$name', ({ comment, expected }) => {
    const result = parseReviewOutput({ summary: 's', comments: [{ ...REVIEW.comments[0], ...comment }] });
    expect(result.ok).toBe(true);
    const got = result.ok ? result.output.comments[0]! : {};
    for (const [key, value] of Object.entries(expected)) {
      if (value === undefined) expect(got).not.toHaveProperty(key);
      else expect(got).toHaveProperty(key, value);
    }
  });

  it.each<{ name: string; input: unknown; expected: AgentReviewOutput }>([
    {
      name: 'missing comments → []',
      input: { summary: 'Only a summary.' },
      expected: { summary: 'Only a summary.', comments: [] },
    },
    {
      name: 'null comments → []',
      input: { summary: 'x', comments: null },
      expected: { summary: 'x', comments: [] },
    },
    { name: 'missing summary → ""', input: { comments: [] }, expected: { summary: '', comments: [] } },
    { name: 'in text too', input: '{"comments": []}', expected: { summary: '', comments: [] } },
  ])('$name', ({ input, expected }) => {
    expect(parseReviewOutput(input)).toEqual({ ok: true, output: expected, repaired: false });
  });
});

describe('parseReviewOutput: errors to re-ask the model with', () => {
  it.each<{ name: string; input: unknown; message: RegExp }>([
    {
      name: 'a top-level array in text',
      input: JSON.stringify(REVIEW.comments),
      message: /top-level array is not valid/,
    },
    {
      name: 'a top-level array with a review object inside',
      input: JSON.stringify([REVIEW]),
      message: /top-level array is not valid/,
    },
    { name: 'a top-level array as arguments', input: [REVIEW], message: /top-level array is not valid/ },
    {
      name: 'prose only',
      input: 'I found no issues, the change looks good.',
      message: /no JSON object with a "summary" or "comments" key/,
    },
    { name: 'empty text', input: '   ', message: /output is empty/ },
    {
      name: 'an object without the keys',
      input: { verdict: 'ok' },
      message: /neither a "summary" nor a "comments" key/,
    },
    { name: 'null', input: null, message: /must be a JSON object, got null/ },
    {
      name: 'comments not an array',
      input: { summary: 's', comments: 'none' },
      message: /comments: expected an array of comment objects/,
    },
    {
      name: 'comment without body',
      input: { comments: [{ path: 'a', line: 1 }] },
      message: /comments\[0\]\.body: expected a string/,
    },
    {
      name: 'side not RIGHT/LEFT',
      input: { comments: [{ path: 'a', line: 1, body: 'b', side: 'middle' }] },
      message: /comments\[0\]\.side: expected "RIGHT" or "LEFT"/,
    },
    {
      name: 'line not a number',
      input: { comments: [{ path: 'a', line: 'twelve', body: 'b' }] },
      message: /comments\[0\]\.line: expected a line number/,
    },
    {
      name: 'summary not a string',
      input: { summary: ['a'], comments: [] },
      message: /summary: expected a string/,
    },
  ])('$name', ({ input, message }) => {
    const result = parseReviewOutput(input);
    expect(result.ok).toBe(false);
    const error = result.ok ? '' : result.error;
    expect(error).toMatch(message);
    expect(error).toContain('Expected one JSON object: {"summary": string, "comments": [');
  });
});
