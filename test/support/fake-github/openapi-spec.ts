/**
 * GitHub's OpenAPI description (api.github.com, from `@octokit/openapi`) turned into something ajv
 * can compile: OpenAPI 3.0 `nullable` becomes JSON Schema `null` types, OpenAPI-only keywords are
 * dropped and every `#/components/...` reference is made absolute against `SPEC_ID`, under which the
 * converted `components.schemas` are registered with ajv.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** `$id` under which the converted component schemas are registered with ajv. */
export const SPEC_ID = 'https://fake-github.invalid/api.github.com.json';

/** A JSON Schema (or OpenAPI schema) object. */
export type Schema = Record<string, unknown>;

/** An OpenAPI parameter object (after `$ref` resolution). */
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

/** The parts of an OpenAPI operation the fake reads. */
export interface OpenApiOperation {
  operationId: string;
  parameters?: Array<OpenApiParameter | { $ref: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: Schema }> }>;
}

/** One path template with its operations, plus a matcher for request paths. */
export interface PathEntry {
  template: string;
  /** Names of the `{params}` in template order. */
  names: string[];
  regex: RegExp;
  /** Literal segments: more means more specific (preferred on a tie). */
  literalSegments: number;
  operations: Partial<Record<string, OpenApiOperation>>;
}

/** The loaded description. */
export interface OpenApiSpec {
  paths: PathEntry[];
  /** `components.schemas`, converted to JSON Schema. */
  componentSchemas: Record<string, Schema>;
  parameters: Record<string, OpenApiParameter>;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

const DROPPED = new Set([
  'nullable',
  'example',
  'examples',
  'discriminator',
  'xml',
  'externalDocs',
  'deprecated',
]);

/** Converts one OpenAPI 3.0 schema to JSON Schema (draft-07 as ajv reads it). */
export function convertSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const src = schema as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(src)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.startsWith('#/') ? `${SPEC_ID}${value}` : value;
    } else if (key === 'properties' || key === 'patternProperties') {
      const props: Schema = {};
      for (const [name, sub] of Object.entries(value as Schema)) props[name] = convertSchema(sub);
      out[key] = props;
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      out[key] = Array.isArray(value) ? value.map(convertSchema) : convertSchema(value);
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      out[key] = (value as unknown[]).map(convertSchema);
    } else {
      out[key] = value;
    }
  }
  if (src.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [{ type: 'null' }, out] };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileTemplate(template: string): Pick<PathEntry, 'names' | 'regex' | 'literalSegments'> {
  const names: string[] = [];
  let pattern = '';
  for (const part of template.split(/(\{[^}]+\})/)) {
    if (part.startsWith('{') && part.endsWith('}')) {
      names.push(part.slice(1, -1));
      pattern += '([^/]+?)';
    } else {
      pattern += escapeRegex(part);
    }
  }
  const literalSegments = template.split('/').filter((s) => s !== '' && !s.includes('{')).length;
  return { names, regex: new RegExp(`^${pattern}$`), literalSegments };
}

function resolveSpecPath(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('@octokit/openapi/generated/api.github.com.json');
}

/**
 * Reads and converts the api.github.com description (13 MB; ~1 s). Callers cache the result.
 * Throws when `@octokit/openapi` is not installed.
 */
export function loadOpenApiSpec(): OpenApiSpec {
  const raw = JSON.parse(readFileSync(resolveSpecPath(), 'utf8')) as {
    paths: Record<string, Record<string, OpenApiOperation>>;
    components: {
      schemas: Record<string, Schema>;
      parameters: Record<string, OpenApiParameter>;
      responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
    };
  };
  const componentSchemas: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(raw.components.schemas)) {
    componentSchemas[name] = convertSchema(schema) as Schema;
  }
  const paths: PathEntry[] = [];
  for (const [template, item] of Object.entries(raw.paths)) {
    const operations: PathEntry['operations'] = {};
    for (const [method, operation] of Object.entries(item)) {
      if (operation && typeof operation === 'object' && 'operationId' in operation) {
        operations[method.toUpperCase()] = operation;
      }
    }
    paths.push({ template, operations, ...compileTemplate(template) });
  }
  paths.sort((a, b) => b.literalSegments - a.literalSegments);
  return {
    paths,
    componentSchemas,
    parameters: raw.components.parameters,
    responses: raw.components.responses,
  };
}
