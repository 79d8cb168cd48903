/**
 * Anthropic Messages API request checks and normalization. The 400 messages copy the real API's
 * wording where known (API reference "Create a Message"; "How to implement tool use": every
 * `tool_use` needs a `tool_result` first in the next user message).
 */
import type { NormalizedRequest, WireError } from './server.js';
import type { FakeLlmOptions, RecordedToolResult } from './types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** Text of a `content` (string, or text blocks joined by `\n`). */
export function anthropicText(content: unknown): string {
  const texts: string[] = [];
  for (const block of blocksOf(content))
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
  return texts.join('\n');
}

function bad(message: string): WireError {
  return { status: 400, message };
}

function checkTopLevel(body: Json): WireError | undefined {
  if (typeof body.model !== 'string' || body.model === '') return bad('model: Field required');
  if (body.max_tokens === undefined) return bad('max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
    return bad('max_tokens: Input should be a valid integer');
  }
  if (body.max_tokens < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    return bad('stream: Input should be a valid boolean');
  if (body.system !== undefined && typeof body.system !== 'string') {
    if (!Array.isArray(body.system)) return bad('system: Input should be a valid list');
    for (const [i, block] of body.system.entries()) {
      if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
        return bad(`system.${i}: Input should be a valid text block`);
      }
    }
  }
  if (body.messages === undefined) return bad('messages: Field required');
  if (!Array.isArray(body.messages)) return bad('messages: Input should be a valid list');
  if (body.messages.length === 0) return bad('messages: at least one message is required');
  return checkBreakpoints(body);
}

/** The API's limit on `cache_control` blocks in one request ("Prompt caching"). */
const MAX_CACHE_BREAKPOINTS = 4;

/** Refuses more than four `cache_control` breakpoints, and any `cache_control` that is not `ephemeral`. */
function checkBreakpoints(body: Json): WireError | undefined {
  let count = 0;
  const visit = (block: unknown): WireError | undefined => {
    if (!isObject(block) || block.cache_control === undefined || block.cache_control === null)
      return undefined;
    const control = block.cache_control;
    if (!isObject(control) || control.type !== 'ephemeral') {
      return bad("cache_control.type: Input should be 'ephemeral'");
    }
    count++;
    return undefined;
  };
  const blocks: unknown[] = [
    ...(Array.isArray(body.tools) ? body.tools : []),
    ...(Array.isArray(body.system) ? body.system : []),
  ];
  for (const message of body.messages as unknown[]) {
    if (isObject(message) && Array.isArray(message.content)) blocks.push(...(message.content as unknown[]));
  }
  for (const block of blocks) {
    const error = visit(block);
    if (error) return error;
  }
  if (count > MAX_CACHE_BREAKPOINTS) {
    return bad(
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.`,
    );
  }
  return undefined;
}

function checkTools(tools: unknown): WireError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return bad('tools: Input should be a valid list');
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) return bad(`tools.${i}: Input should be a valid dictionary`);
    if (typeof tool.name !== 'string') return bad(`tools.${i}.name: Field required`);
    if (names.has(tool.name)) return bad('tools: Tool names must be unique.');
    names.add(tool.name);
    // Server tools (web_search_…, bash_…) carry a `type`; only custom tools need a schema.
    if (tool.type !== undefined && tool.type !== 'custom') continue;
    if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    }
    if (!isObject(tool.input_schema)) return bad(`tools.${i}.custom.input_schema: Field required`);
  }
  return undefined;
}

function checkMessage(message: unknown, i: number, last: boolean): WireError | undefined {
  if (!isObject(message)) return bad(`messages.${i}: Input should be a valid dictionary`);
  if (message.role !== 'user' && message.role !== 'assistant') {
    return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
  }
  const { content } = message;
  if (typeof content !== 'string' && !Array.isArray(content))
    return bad(`messages.${i}.content: Field required`);
  const empty = typeof content === 'string' ? content === '' : content.length === 0;
  if (empty && !(last && message.role === 'assistant')) {
    return bad(
      `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
    );
  }
  if (typeof content === 'string') return undefined;
  for (const [j, block] of content.entries()) {
    if (!isObject(block) || typeof block.type !== 'string')
      return bad(`messages.${i}.content.${j}: Input should be a valid dictionary`);
    if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) {
      return bad('messages: text content blocks must be non-empty');
    }
    if (block.type === 'tool_use') {
      if (message.role !== 'assistant')
        return bad(`messages.${i}.content.${j}: tool_use blocks may only appear in assistant messages`);
      if (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input)) {
        return bad(`messages.${i}.content.${j}.tool_use: id, name and an object input are required`);
      }
    }
    if (block.type === 'tool_result') {
      if (message.role !== 'user')
        return bad(`messages.${i}.content.${j}: tool_result blocks may only appear in user messages`);
      if (typeof block.tool_use_id !== 'string')
        return bad(`messages.${i}.content.${j}.tool_result.tool_use_id: Field required`);
    }
  }
  return undefined;
}

function toolUseIds(message: Json): string[] {
  return blocksOf(message.content)
    .filter((block) => block.type === 'tool_use')
    .map((block) => String(block.id));
}

/** Checks tool_use / tool_result pairing between each message and the next. */
function checkToolPairing(messages: Json[]): WireError | undefined {
  for (const [i, message] of messages.entries()) {
    const previous = i > 0 ? messages[i - 1] : undefined;
    const offered = new Set(previous?.role === 'assistant' ? toolUseIds(previous) : []);
    if (message.role === 'user') {
      for (const [j, block] of blocksOf(message.content).entries()) {
        if (block.type !== 'tool_result' || offered.has(String(block.tool_use_id))) continue;
        return bad(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
        );
      }
    }
    const ids = message.role === 'assistant' ? toolUseIds(message) : [];
    if (ids.length === 0) continue;
    const next = messages[i + 1];
    // Results must lead the next user message: only tool_result blocks before the first other block count.
    const answered = new Set<string>();
    for (const block of next?.role === 'user' ? blocksOf(next.content) : []) {
      if (block.type !== 'tool_result') break;
      answered.add(String(block.tool_use_id));
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return bad(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
          'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      );
    }
  }
  return undefined;
}

/** The first reason the real Messages API would answer 400 to `body`, or `undefined`. */
export function validateAnthropicRequest(body: unknown, options: FakeLlmOptions): WireError | undefined {
  if (!isObject(body)) return bad('The request body must be a JSON object.');
  const topLevel = checkTopLevel(body);
  if (topLevel) return topLevel;
  const messages = body.messages as unknown[];
  for (const [i, message] of messages.entries()) {
    const error = checkMessage(message, i, i === messages.length - 1);
    if (error) return error;
  }
  const typed = messages as Json[];
  if (typed[0]?.role !== 'user') return bad('messages: first message must use the "user" role');
  if (options.strictAlternation) {
    for (const [i, message] of typed.entries()) {
      if (i > 0 && typed[i - 1]?.role === message.role) {
        return bad(
          `messages: roles must alternate between "user" and "assistant", but found multiple "${String(message.role)}" roles in a row`,
        );
      }
    }
  }
  return checkTools(body.tools) ?? checkToolPairing(typed);
}

function toolResultText(content: unknown): string {
  return typeof content === 'string' ? content : anthropicText(content);
}

/** Normalizes a (possibly malformed) Messages API body for the request log. Never throws. */
export function normalizeAnthropicRequest(body: unknown): NormalizedRequest {
  const b = isObject(body) ? body : {};
  const messages = Array.isArray(b.messages) ? b.messages.filter(isObject) : [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    for (const block of blocksOf(message.content)) {
      if (block.type === 'tool_use') toolNames.set(String(block.id), String(block.name));
    }
  }
  const last = messages.at(-1);
  const toolResults: RecordedToolResult[] = [];
  for (const block of last?.role === 'user' ? blocksOf(last.content) : []) {
    if (block.type !== 'tool_result') continue;
    const toolCallId = String(block.tool_use_id);
    toolResults.push({
      toolCallId,
      toolName: toolNames.get(toolCallId),
      content: toolResultText(block.content),
      isError: block.is_error === true,
    });
  }
  return {
    stream: b.stream === true,
    model: typeof b.model === 'string' ? b.model : '',
    system: typeof b.system === 'string' ? b.system : anthropicText(b.system),
    messages: messages.map((message) => ({
      role: String(message.role),
      text: anthropicText(message.content),
    })),
    // Tools the model sees: a `defer_loading` tool stays out of its context until a tool search
    // loads it (Anthropic "tool search"; Claude Code adds such a placeholder for newer models).
    toolNames: Array.isArray(b.tools)
      ? b.tools
          .filter(isObject)
          .filter((tool) => tool.defer_loading !== true)
          .map((tool) => String(tool.name))
      : [],
    toolResults,
  };
}
