/**
 * Anthropic prompt caching through the AI SDK's provider options (CONTRACT §15): `cache_control`
 * breakpoints on the system prompt (which caches the tools before it too), on the message carrying
 * the diff, and on the latest message of the tool loop. Every later request of a run repeats the
 * same prefix byte for byte (the SDK resends the conversation unchanged), so it is billed as a
 * cache read; only what is new since the last breakpoint is billed as input or cache write. Three
 * breakpoints, within Anthropic's limit of four.
 */
import type { ModelMessage, SystemModelMessage } from 'ai';

/** The provider options of one breakpoint (5-minute ephemeral cache, the API's default). */
const BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** The system prompt as a message carrying a breakpoint. */
export function cachedInstructions(systemPrompt: string): SystemModelMessage {
  return { role: 'system', content: systemPrompt, providerOptions: BREAKPOINT };
}

function withoutBreakpoint(message: ModelMessage): ModelMessage {
  const anthropic = message.providerOptions?.anthropic;
  if (anthropic === undefined || !('cacheControl' in anthropic)) return message;
  const { cacheControl: _dropped, ...rest } = anthropic;
  const providerOptions = { ...message.providerOptions, anthropic: rest };
  return { ...message, providerOptions } as ModelMessage;
}

function withBreakpoint(message: ModelMessage): ModelMessage {
  const providerOptions = {
    ...message.providerOptions,
    anthropic: { ...message.providerOptions?.anthropic, ...BREAKPOINT.anthropic },
  };
  return { ...message, providerOptions } as ModelMessage;
}

/**
 * The messages of the next model call with breakpoints on `pinned` (the diff message) and on the
 * last message only; breakpoints of earlier steps are removed (the SDK carries `prepareStep`'s
 * messages forward, and the API allows four breakpoints at most).
 */
export function placeBreakpoints(messages: ModelMessage[], pinned: number): ModelMessage[] {
  const last = messages.length - 1;
  return messages.map((message, i) =>
    i === pinned || i === last ? withBreakpoint(message) : withoutBreakpoint(message),
  );
}
