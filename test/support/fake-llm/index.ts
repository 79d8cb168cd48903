/**
 * Fake LLM servers for tests: real HTTP servers on 127.0.0.1 that speak the Anthropic Messages
 * API and the OpenAI Chat Completions API (streaming and not, tool calls included), answer from a
 * script, refuse bad keys and malformed conversations like the real APIs, and record every request.
 *
 * @example
 * const llm = await startFakeAnthropic({ apiKey: 'test-key', script: [{ text: 'hi' }] });
 * const anthropic = createAnthropic({ baseURL: `${llm.url}/v1`, apiKey: 'test-key' });
 * // … run the code under test, then:
 * expect(llm.requests[0]?.messages.at(-1)?.text).toContain('review');
 * await llm.close();
 */
export { startFakeAnthropic } from './anthropic.js';
export { startFakeGemini } from './gemini.js';
export { startFakeOpenAI } from './openai.js';
export type {
  FakeLlm,
  FakeLlmOptions,
  RecordedLlmRequest,
  RecordedOtherRequest,
  RecordedToolResult,
  Script,
  ScriptedReply,
  ScriptedToolCall,
} from './types.js';
