/**
 * Finding the judge's `{"matches": [...]}` object in a free-form answer: the whole text, a fenced
 * block, or an object opening with a `matches` key inside prose; slightly malformed JSON repaired.
 */
import { jsonrepair } from 'jsonrepair';

const FENCE = /```[\w-]*[^\S\n]*\r?\n([\s\S]*?)```/g;
const MATCHES_KEY = /\{\s*["']?matches["']?\s*:/g;

/** End (exclusive) of the bracketed value opening at `start`, or the text's end when cut short. */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // repaired below
  }
  if (!text.includes('{')) return undefined;
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}

function hasMatches(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'matches' in value;
}

/**
 * The last JSON object with a `matches` key in `text` (a final answer beats a draft), or
 * undefined when there is none.
 */
export function extractJsonValue(text: string): unknown {
  const candidates = [text.trim()];
  for (const match of text.matchAll(FENCE)) candidates.push(match[1] ?? '');
  for (const match of text.matchAll(MATCHES_KEY)) {
    candidates.push(text.slice(match.index, valueEnd(text, match.index)));
  }
  let found: unknown;
  for (const candidate of candidates) {
    const value = parse(candidate);
    if (hasMatches(value)) found = value;
  }
  return found;
}
