/**
 * The size of a model call before it is sent (CONTRACT §15, the cost cap): the characters of the
 * system prompt, the tool definitions (name, description, JSON schema) and the messages, as the
 * provider receives them. The review's usage meter turns characters into tokens and prices them.
 */
import { asSchema, type ModelMessage, type ToolSet } from 'ai';

/** Characters of the tool definitions a call carries (computed once per run). */
export async function toolDefinitionChars(tools: ToolSet): Promise<number> {
  let chars = 0;
  for (const [name, tool] of Object.entries(tools)) {
    chars += name.length + (tool.description?.length ?? 0);
    try {
      chars += JSON.stringify(await asSchema(tool.inputSchema).jsonSchema).length;
    } catch {
      chars += 1_000; // a schema that cannot be rendered: a generous stand-in
    }
  }
  return chars;
}

/** Characters of one call's messages (their JSON, which is at least what the provider is sent). */
export function messageChars(messages: readonly ModelMessage[]): number {
  return JSON.stringify(messages).length;
}
