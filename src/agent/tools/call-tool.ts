/** Runs one tool of a tool set directly, the way the AI SDK does inside the agent loop. */
import type { ToolSet } from 'ai';

/** What the model would get back: the output text, or the error message with `isError`. */
export interface ToolCallOutcome {
  isError: boolean;
  output: string;
}

/**
 * Executes `tools[name]` with `input` (not schema-validated: the SDK validates before calling).
 * A thrown error becomes `{ isError: true, output: message }`, as the SDK turns it into an error
 * result for the model. Throws only when the tool does not exist or has no `execute`.
 */
export async function callTool(tools: ToolSet, name: string, input: unknown): Promise<ToolCallOutcome> {
  const execute = tools[name]?.execute;
  if (!execute) throw new Error(`no executable tool named ${name}`);
  try {
    const output: unknown = await execute(input, { toolCallId: `call-${name}`, messages: [], context: {} });
    return { isError: false, output: typeof output === 'string' ? output : JSON.stringify(output) };
  } catch (error) {
    return { isError: true, output: error instanceof Error ? error.message : String(error) };
  }
}
