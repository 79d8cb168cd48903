/**
 * Shared types of the fake LLM servers: what a test scripts (replies) and what the fake records
 * (normalized requests).
 */

/** One tool call the fake model makes. `id` defaults to a fresh provider-style id (`toolu_…`, `call_…`). */
export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

/**
 * One scripted model turn.
 * - `text`: assistant text (streamed in several deltas).
 * - `toolCalls`: tool calls; the stop reason becomes `tool_use` (Anthropic) / `tool_calls` (OpenAI).
 * - `error`: answer with this HTTP status instead. `body` is sent verbatim (a string as text/plain,
 *   anything else as JSON); without it the provider's own error JSON is built. `headers` are added
 *   to the response (e.g. `{ 'retry-after-ms': '0' }` to make SDK retries immediate).
 * - `usage`: reported token counts; default: an estimate of ~4 characters per token.
 * - `delayMs`: wait this many milliseconds before answering (headers included).
 */
export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  usage?: { inputTokens: number; outputTokens: number };
  delayMs?: number;
}

/**
 * A script: replies in order, or a function of the request. `index` is the 0-based number of the
 * request among those that reached the script (requests refused with 401/400 do not count).
 */
export type Script = ScriptedReply[] | ((request: RecordedLlmRequest, index: number) => ScriptedReply);

/** A tool result carried by a request. `isError` is always false for OpenAI (no such flag on the wire). */
export interface RecordedToolResult {
  toolCallId: string;
  toolName?: string;
  content: string;
  isError: boolean;
}

/**
 * One request to the model endpoint (`/v1/messages` or `/v1/chat/completions`), normalized.
 * - `headers`: lower-case names; `x-api-key` and `authorization` values are replaced by `[redacted]`.
 * - `system`: system prompt text (Anthropic `system`; OpenAI `system`/`developer` messages), joined by `\n`.
 * - `messages`: every non-system message with its text parts joined by `\n` (tool_use/tool_result
 *   blocks are not text; an OpenAI `tool` message's text is its content).
 * - `toolResults`: tool results of the latest turn (Anthropic: the last user message; OpenAI: the
 *   `tool` messages after the last assistant message).
 * - `status`: the HTTP status the fake answered with; `errorMessage`: the message of an error it built.
 */
export interface RecordedLlmRequest {
  protocol: 'anthropic' | 'openai' | 'gemini';
  path: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the raw JSON body, any shape
  body: any;
  stream: boolean;
  model: string;
  system: string;
  messages: Array<{ role: string; text: string }>;
  toolNames: string[];
  toolResults: RecordedToolResult[];
  status: number;
  errorMessage?: string;
  /**
   * Usage the fake reported for a 200 answer: `inputTokens` is the uncached input (Anthropic's
   * `input_tokens`), cache writes and reads apart (Anthropic fake, unscripted usage only).
   */
  usage?: { inputTokens: number; outputTokens: number; cacheWriteTokens?: number; cacheReadTokens?: number };
}

/** A request to any other endpoint (token counting, model listing, unknown paths). */
export interface RecordedOtherRequest {
  method: string;
  path: string;
  status: number;
}

/** A running fake. */
export interface FakeLlm {
  /** Root URL, `http://127.0.0.1:PORT`. SDK base URL: `url + '/v1'` (Anthropic and OpenAI alike). */
  url: string;
  /** Every request to the model endpoint, in arrival order, including refused ones (see `status`). */
  requests: RecordedLlmRequest[];
  /** Requests to any other endpoint (`/v1/messages/count_tokens`, `/v1/models`, unknown paths). */
  otherRequests: RecordedOtherRequest[];
  /** Replaces the script; the next request is index 0 of the new script. */
  setScript(script: Script): void;
  /** Stops the server, cutting open connections and pending `delayMs` waits. */
  close(): Promise<void>;
}

/** Options of `startFakeAnthropic` / `startFakeOpenAI`. */
export interface FakeLlmOptions {
  /**
   * The only key accepted. `null`: no key is needed and any request is taken, as a local server
   * (Ollama, vLLM, llama.cpp) does; a test can then check that none was sent (`headers`).
   */
  apiKey: string | null;
  script?: Script;
  /**
   * Anthropic only: refuse consecutive messages of the same role with 400. The real API combines
   * them into one turn (API reference, `messages`), so this is off by default.
   */
  strictAlternation?: boolean;
  /**
   * Model ids the fake serves; any other gets the provider's 404 (`models.ts`). Default:
   * `DEFAULT_FAKE_MODELS` (every provider's default model and the ids the tests use).
   */
  models?: readonly string[];
}
