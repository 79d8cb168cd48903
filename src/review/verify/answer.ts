/**
 * Reading a verification run's answer (CONTRACT §22): the `submit_verification` arguments, or the
 * same object as JSON text (in prose or a code fence, repaired when slightly malformed).
 */
import { jsonrepair } from 'jsonrepair';
import type { VerificationAnswer, VerificationVerdict } from './types.js';

const VERDICTS: readonly VerificationVerdict[] = ['confirmed', 'refuted', 'inconclusive'];

/**
 * Checks an answer object. A missing or unknown verdict is an error (the caller re-asks once);
 * missing text fields are empty.
 * @returns the answer, or a short reason it is not one.
 */
export function checkAnswer(value: unknown): VerificationAnswer | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'the answer is not a JSON object' };
  const record = value as Record<string, unknown>;
  const verdict = typeof record.verdict === 'string' ? record.verdict.trim().toLowerCase() : undefined;
  if (verdict === undefined || !VERDICTS.includes(verdict as VerificationVerdict))
    return { error: '"verdict" must be "confirmed", "refuted" or "inconclusive"' };
  const text = (key: string) => (typeof record[key] === 'string' ? record[key] : '');
  return {
    verdict: verdict as VerificationVerdict,
    command: text('command'),
    output: text('output'),
    explanation: text('explanation'),
  };
}

/** The last `{…"verdict"…}` object in `text`, parsed (repaired if need be), or undefined. */
export function extractAnswerJson(text: string): unknown {
  const starts: number[] = [];
  for (const match of text.matchAll(/\{\s*"?verdict"?\s*:/g)) starts.push(match.index);
  const first = text.indexOf('{');
  if (first !== -1 && !starts.includes(first)) starts.unshift(first);
  for (const start of starts.reverse()) {
    const candidate = text.slice(start, closingBrace(text, start));
    for (const parse of [JSON.parse, (s: string) => JSON.parse(jsonrepair(s)) as unknown]) {
      try {
        const value: unknown = parse(candidate);
        if (typeof value === 'object' && value !== null && 'verdict' in value) return value;
      } catch {
        // next
      }
    }
  }
  return undefined;
}

/** End (exclusive) of the object opening at `start`, honouring strings; the text's end if unclosed. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The answer of a run: the tool's arguments when it called `submit_verification`, else its text. */
export function readAnswer(run: {
  submitted?: unknown;
  text: string;
}): VerificationAnswer | { error: string } {
  if (run.submitted !== undefined) return checkAnswer(run.submitted);
  const value = extractAnswerJson(run.text);
  return value === undefined ? { error: 'no JSON object with a "verdict" was found' } : checkAnswer(value);
}
