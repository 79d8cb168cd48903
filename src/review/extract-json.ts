/**
 * Finding the review JSON object inside a model's free-form answer: prose around it, code fences,
 * several objects, slightly malformed or truncated JSON.
 */
import { jsonrepair } from 'jsonrepair';

/** A piece of the text that may hold the JSON object. */
interface Candidate {
  /** Offset of the candidate in the text, chars; later candidates win. */
  at: number;
  text: string;
}

/** A JSON value found in the text. */
export interface ExtractedJson {
  value: unknown;
  /** True when the text was not valid JSON and `jsonrepair` fixed it. */
  repaired: boolean;
}

const FENCE = /```[\w-]*[^\S\n]*\r?\n([\s\S]*?)```/g;
const REVIEW_KEY = /\{\s*["']?(?:summary|comments)["']?\s*:/g;

/**
 * End (exclusive) of the JSON object opening at `start`, honouring double-quoted strings, or -1
 * when the text ends first (a truncated answer).
 */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function candidatesOf(text: string): Candidate[] {
  const candidates: Candidate[] = [{ at: text.length - text.trimStart().length, text: text.trim() }];
  for (const match of text.matchAll(FENCE)) {
    candidates.push({ at: match.index + match[0].indexOf('\n') + 1, text: match[1] ?? '' });
  }
  // Every top-level `{…}` span (outside objects, quotes are prose, so they are not tracked).
  for (let i = text.indexOf('{'); i !== -1;) {
    const end = objectEnd(text, i);
    candidates.push({ at: i, text: text.slice(i, end === -1 ? undefined : end) });
    if (end === -1) break;
    i = text.indexOf('{', end);
  }
  // Objects opening with a review key, in case an unbalanced `{` in prose swallowed them above.
  for (const match of text.matchAll(REVIEW_KEY)) {
    const end = objectEnd(text, match.index);
    candidates.push({ at: match.index, text: text.slice(match.index, end === -1 ? undefined : end) });
  }
  return candidates;
}

function parseCandidate(text: string): ExtractedJson | undefined {
  try {
    return { value: JSON.parse(text), repaired: false };
  } catch {
    // fall through to the repair
  }
  if (!text.includes('{')) return undefined;
  try {
    return { value: JSON.parse(jsonrepair(text)), repaired: true };
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `value` is an object with a `summary` or `comments` key. */
export function isReviewShaped(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && ('summary' in value || 'comments' in value);
}

/**
 * The review object itself, or the one object nested in a single-key wrapper such as
 * `{"review": {"summary": …}}`; `undefined` when neither has a `summary` or `comments` key.
 */
export function unwrapReview(value: unknown): Record<string, unknown> | undefined {
  if (isReviewShaped(value)) return value;
  if (isPlainObject(value)) {
    const inner = Object.values(value);
    if (inner.length === 1 && isReviewShaped(inner[0])) return inner[0];
  }
  return undefined;
}

/**
 * The outermost JSON object of `text` that has a `summary` or `comments` key: the whole text, a
 * fenced block's content, or a `{…}` span inside prose. Strictly valid JSON beats repaired JSON;
 * among equals the one starting last wins (a final answer after a draft or an example).
 *
 * @returns the found object (already unwrapped, see {@link unwrapReview}), or `undefined`; and
 *   `sawArray` when the text (or a fence) is a JSON array, for a precise error message.
 */
export function extractReviewJson(text: string): { found?: ExtractedJson; sawArray: boolean } {
  const parsed: Array<{ candidate: Candidate; result: ExtractedJson }> = [];
  // Regions that are a JSON array as a whole (the text, a fence): objects inside them do not count.
  const arrays: Array<[number, number]> = [];
  for (const candidate of candidatesOf(text)) {
    const result = parseCandidate(candidate.text);
    if (result === undefined) continue;
    if (Array.isArray(result.value) && !result.repaired) {
      arrays.push([candidate.at, candidate.at + candidate.text.length]);
    }
    parsed.push({ candidate, result });
  }
  let best: (ExtractedJson & { at: number }) | undefined;
  for (const { candidate, result } of parsed) {
    const review = unwrapReview(result.value);
    if (review === undefined) continue;
    if (arrays.some(([from, to]) => candidate.at > from && candidate.at < to)) continue;
    const better =
      best === undefined ||
      (best.repaired && !result.repaired) ||
      (best.repaired === result.repaired && candidate.at >= best.at);
    if (better) best = { value: review, repaired: result.repaired, at: candidate.at };
  }
  const sawArray = arrays.length > 0;
  if (best === undefined) return { sawArray };
  return { found: { value: best.value, repaired: best.repaired }, sawArray };
}
