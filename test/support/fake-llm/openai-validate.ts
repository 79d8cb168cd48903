/**
 * OpenAI Chat Completions request checks and normalization. Messages and `param`/`code` values
 * copy the real API's 400 answers where known (API reference "Create chat completion"; function
 * calling guide: every assistant `tool_calls` entry must be answered by a `tool` message).
 */
import type { NormalizedRequest, WireError } from './server.js';
import type { RecordedToolResult } from './types.js';

type Json = Record<string, unknown>;

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string, param: string | null = null, code: string | null = null): WireError {
  return { status: 400, message, param, code };
}

/** Text of a message `content`: a string, or the `text` parts of an array joined by `\n`. */
export function openaiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
  return texts.join('\n');
}

function toolCallsOf(message: Json | undefined): Json[] {
  return message?.role === 'assistant' && Array.isArray(message.tool_calls)
    ? message.tool_calls.filter(isObject)
    : [];
}

function checkMessage(message: unknown, i: number): WireError | undefined {
  if (!isObject(message))
    return bad(`Invalid type for 'messages[${i}]': expected an object.`, `messages[${i}]`, 'invalid_type');
  const role = message.role;
  if (typeof role !== 'string')
    return bad(
      `Missing required parameter: 'messages[${i}].role'.`,
      `messages[${i}].role`,
      'missing_required_parameter',
    );
  if (!ROLES.has(role)) {
    return bad(
      `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `messages[${i}].role`,
      'invalid_value',
    );
  }
  const hasContent = typeof message.content === 'string' || Array.isArray(message.content);
  if (role === 'assistant') {
    if (!hasContent && toolCallsOf(message).length === 0) {
      return bad("Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`);
    }
    for (const [j, call] of toolCallsOf(message).entries()) {
      const fn = isObject(call.function) ? call.function : {};
      if (typeof call.id !== 'string' || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
        return bad(
          `Missing required parameter: 'messages[${i}].tool_calls[${j}]'.`,
          `messages[${i}].tool_calls[${j}]`,
          'missing_required_parameter',
        );
      }
    }
    return undefined;
  }
  if (!hasContent)
    return bad(
      `Missing required parameter: 'messages[${i}].content'.`,
      `messages[${i}].content`,
      'missing_required_parameter',
    );
  if (role === 'tool' && typeof message.tool_call_id !== 'string') {
    return bad(
      `Missing required parameter: 'messages[${i}].tool_call_id'.`,
      `messages[${i}].tool_call_id`,
      'missing_required_parameter',
    );
  }
  return undefined;
}

/** Every assistant tool call needs a `tool` answer right after it; every `tool` message needs a call. */
function checkToolPairing(messages: Json[]): WireError | undefined {
  let pending: { index: number; ids: Set<string>; offered: Set<string> } | undefined;
  const unanswered = (): WireError | undefined =>
    pending && pending.ids.size > 0
      ? bad(
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
            `The following tool_call_ids did not have response messages: ${[...pending.ids].join(', ')}`,
          `messages.[${pending.index}].role`,
        )
      : undefined;
  for (const [i, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!pending) {
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      const callId = String(message.tool_call_id);
      if (!pending.offered.has(callId)) {
        return bad(
          `Invalid parameter: 'tool_call_id' of '${callId}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`,
        );
      }
      pending.ids.delete(callId);
      continue;
    }
    const error = unanswered();
    if (error) return error;
    const ids = toolCallsOf(message).map((call) => String(call.id));
    pending = ids.length > 0 ? { index: i, ids: new Set(ids), offered: new Set(ids) } : undefined;
  }
  return unanswered();
}

function checkTools(tools: unknown): WireError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools))
    return bad("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
  for (const [i, tool] of tools.entries()) {
    const fn = isObject(tool) && isObject(tool.function) ? tool.function : undefined;
    if (!fn || typeof fn.name !== 'string') {
      return bad(
        `Missing required parameter: 'tools[${i}].function.name'.`,
        `tools[${i}].function.name`,
        'missing_required_parameter',
      );
    }
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
      return bad(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        'invalid_value',
      );
    }
  }
  return undefined;
}

/** The first reason the real Chat Completions API would answer 400 to `body`, or `undefined`. */
export function validateOpenAIRequest(body: unknown): WireError | undefined {
  if (!isObject(body)) return bad('The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter');
  const messages = body.messages;
  if (messages === undefined)
    return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages))
    return bad("Invalid type for 'messages': expected an array of objects.", 'messages', 'invalid_type');
  if (messages.length === 0) {
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (const [i, message] of messages.entries()) {
    const error = checkMessage(message, i);
    if (error) return error;
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  return checkTools(body.tools) ?? checkToolPairing(messages as Json[]);
}

/** Normalizes a (possibly malformed) Chat Completions body for the request log. Never throws. */
export function normalizeOpenAIRequest(body: unknown): NormalizedRequest {
  const b = isObject(body) ? body : {};
  const all = Array.isArray(b.messages) ? b.messages.filter(isObject) : [];
  const system = all.filter((m) => m.role === 'system' || m.role === 'developer');
  const rest = all.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const lastAssistant = rest.findLastIndex((m) => m.role === 'assistant');
  const names = new Map<string, string>();
  for (const call of toolCallsOf(rest[lastAssistant])) {
    const fn = isObject(call.function) ? call.function : {};
    names.set(String(call.id), String(fn.name));
  }
  const toolResults: RecordedToolResult[] = [];
  for (const message of rest.slice(lastAssistant + 1)) {
    if (message.role !== 'tool') continue;
    const toolCallId = String(message.tool_call_id);
    toolResults.push({
      toolCallId,
      toolName: names.get(toolCallId),
      content: openaiText(message.content),
      isError: false,
    });
  }
  const tools = Array.isArray(b.tools) ? b.tools.filter(isObject) : [];
  return {
    stream: b.stream === true,
    model: typeof b.model === 'string' ? b.model : '',
    system: system.map((m) => openaiText(m.content)).join('\n'),
    messages: rest.map((m) => ({ role: String(m.role), text: openaiText(m.content) })),
    toolNames: tools.map((t) => (isObject(t.function) ? String(t.function.name) : '')),
    toolResults,
  };
}
