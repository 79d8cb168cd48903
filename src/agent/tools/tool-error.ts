/**
 * The error a tool throws to refuse or fail a call. The AI SDK turns it into an error tool result
 * (`is_error` on Anthropic), so the model reads the message and the run continues.
 */

/** A tool failure whose message is shown to the model; it must hold no secret and no file content. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
