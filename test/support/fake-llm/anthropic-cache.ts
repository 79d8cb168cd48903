/**
 * Prompt-cache accounting of the fake Anthropic API, as the real API documents it ("Prompt
 * caching"): the prompt is the sequence tools → system → messages, block by block; a block carrying
 * `cache_control` is a breakpoint, and a request writes the prefix up to each breakpoint to the
 * cache (when it is at least the minimum cacheable length). A later request reads the longest
 * cached prefix it repeats exactly, found at a breakpoint or up to 20 blocks before one. Usage is
 * reported as the API does: `input_tokens` (after the last cache hit or write),
 * `cache_creation_input_tokens`, `cache_read_input_tokens`. `cache_control` itself is not part of
 * the prefix (moving a breakpoint does not change what is cached).
 */
import { createHash } from 'node:crypto';
import { tokensOfChars } from './sse.js';

/** Minimum cacheable prompt length, tokens (Claude Sonnet and Opus models). */
export const MIN_CACHEABLE_TOKENS = 1024;
/** How many blocks before a breakpoint the API looks for an earlier cache hit. */
const LOOKBACK_BLOCKS = 20;

/** Usage of one request by kind. */
export interface CacheUsage {
  /** Tokens after the last cache read or write (`input_tokens`). */
  inputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
}

interface Block {
  text: string;
  breakpoint: boolean;
}

function strip(value: unknown): { text: string; breakpoint: boolean } {
  if (typeof value !== 'object' || value === null) return { text: JSON.stringify(value), breakpoint: false };
  const { cache_control: cacheControl, ...rest } = value as Record<string, unknown>;
  return { text: JSON.stringify(rest), breakpoint: cacheControl !== undefined && cacheControl !== null };
}

/** The prompt's blocks in cache order: tools, system, then each message's content blocks. */
export function promptBlocks(body: unknown): Block[] {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const blocks: Block[] = [];
  for (const tool of Array.isArray(b.tools) ? b.tools : []) blocks.push(strip(tool));
  if (typeof b.system === 'string') blocks.push({ text: JSON.stringify(b.system), breakpoint: false });
  else if (Array.isArray(b.system)) for (const part of b.system) blocks.push(strip(part));
  for (const message of Array.isArray(b.messages) ? b.messages : []) {
    const m = (message ?? {}) as { role?: unknown; content?: unknown };
    const role = String(m.role);
    if (typeof m.content === 'string')
      blocks.push({ text: `${role}:${JSON.stringify(m.content)}`, breakpoint: false });
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        const s = strip(part);
        blocks.push({ text: `${role}:${s.text}`, breakpoint: s.breakpoint });
      }
    }
  }
  return blocks;
}

/** One fake server's cache: prefix hashes written so far. */
export interface PromptCache {
  /** Accounts one request (and writes its breakpoints' prefixes). */
  account(body: unknown): CacheUsage;
}

/** Creates an empty cache; it lives as long as the fake server (no expiry). */
export function createPromptCache(minTokens = MIN_CACHEABLE_TOKENS): PromptCache {
  const cached = new Set<string>();
  return {
    account(body) {
      const blocks = promptBlocks(body);
      const hashes: string[] = [];
      const tokens: number[] = [];
      let hash = '';
      let chars = 0;
      for (const block of blocks) {
        hash = createHash('sha256').update(hash).update('\u0000').update(block.text).digest('hex');
        chars += block.text.length;
        hashes.push(hash);
        tokens.push(tokensOfChars(chars));
      }
      const total = tokens.at(-1) ?? 1;
      const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));
      let hit = -1;
      for (const bp of breakpoints) {
        for (let j = bp; j >= Math.max(0, bp - LOOKBACK_BLOCKS + 1); j--) {
          if (cached.has(hashes[j]!)) {
            hit = Math.max(hit, j);
            break;
          }
        }
      }
      const read = hit >= 0 ? tokens[hit]! : 0;
      let write = 0;
      for (const bp of breakpoints) {
        if (bp <= hit || tokens[bp]! < minTokens) continue;
        cached.add(hashes[bp]!);
        write = Math.max(write, tokens[bp]! - read);
      }
      return {
        inputTokens: Math.max(1, total - read - write),
        cacheWriteTokens: write,
        cacheReadTokens: read,
      };
    },
  };
}
