/**
 * What the Gemini API (`generativelanguage.googleapis.com/v1beta`, `models.generateContent` and
 * `models.streamGenerateContent`; Google AI for Developers, "Generating content" and "Function
 * calling") refuses with 400 `INVALID_ARGUMENT`, and the normalized form of a request.
 */
import type { NormalizedRequest, WireError } from './server.js';
import type { RecordedToolResult } from './types.js';

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The model endpoint: `/v1beta/models/<id>:generateContent` or `:streamGenerateContent`. */
export const GEMINI_MODEL_PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** A function name as Gemini accepts it: a letter or `_` first, then up to 63 of `[A-Za-z0-9_.-]`. */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const bad = (message: string): WireError => ({ status: 400, message });

function partKinds(part: Loose): string[] {
  return ['text', 'functionCall', 'functionResponse', 'inlineData', 'fileData'].filter(
    (k) => part[k] !== undefined,
  );
}

function checkPart(part: unknown, where: string, role: string): WireError | undefined {
  if (!isObject(part)) return bad(`${where}: a part must be an object`);
  const kinds = partKinds(part);
  if (kinds.length !== 1)
    return bad(`${where}: a part must hold exactly one of text, functionCall, functionResponse`);
  if (part.text !== undefined && typeof part.text !== 'string') return bad(`${where}.text: not a string`);
  if (part.functionCall !== undefined) {
    if (role !== 'model') return bad(`${where}: a functionCall must be in a model turn`);
    const call = part.functionCall;
    if (!isObject(call) || typeof call.name !== 'string' || !FUNCTION_NAME.test(call.name))
      return bad(`${where}.functionCall.name: invalid function name`);
    if (call.args !== undefined && !isObject(call.args))
      return bad(`${where}.functionCall.args: not an object`);
  }
  if (part.functionResponse !== undefined) {
    if (role !== 'user') return bad(`${where}: a functionResponse must be in a user turn`);
    const response = part.functionResponse;
    if (!isObject(response) || typeof response.name !== 'string' || !isObject(response.response))
      return bad(`${where}.functionResponse: needs a name and a response object`);
  }
  return undefined;
}

/** Function calls of a model turn must be answered, all of them, by the next (user) turn. */
function checkCallsAnswered(contents: Loose[]): WireError | undefined {
  for (const [i, content] of contents.entries()) {
    const parts = content.parts as Loose[];
    const calls = parts
      .filter((p) => p.functionCall !== undefined)
      .map((p) => (p.functionCall as Loose).name);
    const responses = parts.filter((p) => p.functionResponse !== undefined);
    if (responses.length > 0) {
      const previous = contents[i - 1];
      const asked = ((previous?.parts as Loose[] | undefined) ?? [])
        .filter((p) => p.functionCall !== undefined)
        .map((p) => (p.functionCall as Loose).name);
      if (asked.length !== responses.length)
        return bad(
          'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
        );
    }
    if (calls.length > 0 && i + 1 < contents.length) {
      const next = contents[i + 1]!.parts as Loose[];
      if (next.filter((p) => p.functionResponse !== undefined).length !== calls.length)
        return bad(
          'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
        );
    }
  }
  return undefined;
}

/** The first reason Gemini would refuse `body` with 400, or undefined. */
export function validateGeminiRequest(body: unknown): WireError | undefined {
  if (!isObject(body)) return bad('Invalid JSON payload received.');
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return bad('* GenerateContentRequest.contents: contents is not specified');
  for (const [i, content] of body.contents.entries()) {
    if (!isObject(content)) return bad(`contents[${i}]: not an object`);
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model')
      return bad(`contents[${i}].role: Please use a valid role: user, model.`);
    if (!Array.isArray(content.parts) || content.parts.length === 0)
      return bad(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    for (const [j, part] of content.parts.entries()) {
      const why = checkPart(part, `contents[${i}].parts[${j}]`, String(role));
      if (why) return why;
    }
  }
  const answered = checkCallsAnswered(body.contents as Loose[]);
  if (answered) return answered;
  const system = body.systemInstruction;
  if (system !== undefined) {
    if (
      !isObject(system) ||
      !Array.isArray(system.parts) ||
      !system.parts.every((p) => isObject(p) && typeof p.text === 'string')
    )
      return bad('systemInstruction: parts of text only');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad('tools: not a list');
    for (const tool of body.tools) {
      const declarations = isObject(tool) ? tool.functionDeclarations : undefined;
      if (declarations === undefined) continue;
      if (!Array.isArray(declarations)) return bad('tools[].functionDeclarations: not a list');
      for (const d of declarations) {
        if (!isObject(d) || typeof d.name !== 'string' || !FUNCTION_NAME.test(d.name))
          return bad(
            `* GenerateContentRequest.tools[0].function_declarations: invalid name ${JSON.stringify(isObject(d) ? d.name : d)}`,
          );
      }
    }
  }
  return undefined;
}

function textOf(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .filter((p): p is Loose => isObject(p) && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/** The normalized form of a Gemini request to `pathname`; never throws. */
export function normalizeGeminiRequest(body: unknown, pathname: string): NormalizedRequest {
  const match = GEMINI_MODEL_PATH.exec(pathname);
  const b = isObject(body) ? body : {};
  const contents = Array.isArray(b.contents) ? (b.contents.filter(isObject) as Loose[]) : [];
  const last = contents.at(-1);
  const toolResults: RecordedToolResult[] = (Array.isArray(last?.parts) ? (last.parts as unknown[]) : [])
    .filter((p): p is Loose => isObject(p) && isObject(p.functionResponse))
    .map((p) => {
      const response = p.functionResponse as Loose;
      return {
        toolCallId: String(response.id ?? response.name ?? ''),
        toolName: String(response.name ?? ''),
        content: JSON.stringify(response.response ?? null),
        isError: false,
      };
    });
  const declarations = Array.isArray(b.tools)
    ? b.tools.flatMap((t) =>
        isObject(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [],
      )
    : [];
  return {
    stream: match?.[2] === 'streamGenerateContent',
    model: match?.[1] !== undefined ? decodeURIComponent(match[1]) : '',
    system: isObject(b.systemInstruction) ? textOf(b.systemInstruction.parts) : '',
    messages: contents.map((c) => ({
      role: c.role === 'model' ? 'assistant' : 'user',
      text: textOf(c.parts),
    })),
    toolNames: declarations.filter(isObject).map((d) => String(d.name)),
    toolResults,
  };
}
