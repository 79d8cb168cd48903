/**
 * Checks requests to the fake Bitbucket Cloud against Atlassian's published OpenAPI 3.0 description
 * of API 2.0 (`test/fixtures/bitbucket-cloud/swagger.v3.json`, see its README): finds the
 * operation by method and path template, checks path parameters (integers where declared), query
 * parameter names (declared ones plus Bitbucket's generic `page`, `pagelen`, `q`, `sort`, `fields`)
 * and the JSON body against the operation's `requestBody` schema. Bitbucket answers 400 to a body
 * its schema rejects (e.g. an unknown key under `inline`, which is `additionalProperties: false`).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface PathEntry {
  template: string;
  names: string[];
  regex: RegExp;
  literalChars: number;
  common: Parameter[];
  operations: Record<string, Operation>;
}

/** An operation found for a request. */
export interface MatchedOperation {
  template: string;
  params: Record<string, string>;
  operation: Operation;
  parameters: Parameter[];
}

const SPEC_PATH = new URL('../../fixtures/bitbucket-cloud/swagger.v3.json', import.meta.url);
const ID = 'https://fake-bitbucket.invalid/swagger.json';
const GENERIC_QUERY = new Set(['page', 'pagelen', 'q', 'sort', 'fields']);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Loaded {
  paths: PathEntry[];
  ajv: Ajv;
  cache: Map<string, ValidateFunction>;
}
let loaded: Loaded | undefined;

/** Absolute `$ref`s, documentation keys dropped. */
function convert(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(convert);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\//, `${ID}#/`);
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([n, s]) => [n, convert(s)]));
    } else if (key === 'discriminator' || key === 'example' || key === 'description' || key.startsWith('x-'))
      continue;
    else out[key] = convert(value);
  }
  return out;
}

function load(): Loaded {
  if (loaded) return loaded;
  const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Schema };
  };
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: ID, components: { schemas: convert(spec.components.schemas) } });
  const paths: PathEntry[] = Object.entries(spec.paths).map(([template, item]) => {
    const names: string[] = [];
    const pattern = template
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        // `{path}` of `/src/{commit}/{path}` spans segments.
        return name === 'path' ? '(.+)' : '([^/]+)';
      })
      .join('');
    const operations: Record<string, Operation> = {};
    for (const [method, op] of Object.entries(item))
      if (method !== 'parameters') operations[method] = op as Operation;
    return {
      template,
      names,
      regex: new RegExp(`^${pattern}$`),
      literalChars: template.replace(/\{[^}]+\}/g, '').length,
      common: (item.parameters as Parameter[] | undefined) ?? [],
      operations,
    };
  });
  paths.sort((a, b) => b.literalChars - a.literalChars);
  loaded = { paths, ajv, cache: new Map() };
  return loaded;
}

/** The operation for `method` and `path` (relative to `/2.0`), or undefined when there is none. */
export function matchOperation(method: string, path: string): MatchedOperation | undefined {
  for (const entry of load().paths) {
    const match = entry.regex.exec(path);
    const operation = entry.operations[method.toLowerCase()];
    if (!match || !operation) continue;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      params[name] = decodeURIComponent(match[i + 1] ?? '');
    });
    return {
      template: entry.template,
      params,
      operation,
      parameters: [...entry.common, ...(operation.parameters ?? [])],
    };
  }
  return undefined;
}

/** What is wrong with a request to `op` (empty when nothing). */
export function validateRequest(op: MatchedOperation, query: URLSearchParams, body: unknown): string[] {
  const problems: string[] = [];
  for (const p of op.parameters) {
    if (p.in === 'path' && p.schema?.type === 'integer' && !/^\d+$/.test(op.params[p.name] ?? '')) {
      problems.push(`path parameter ${p.name} is not an integer`);
    }
  }
  const declared = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of query.keys()) {
    if (!declared.has(name) && !GENERIC_QUERY.has(name)) problems.push(`undeclared query parameter ${name}`);
  }
  const schema = op.operation.requestBody?.content?.['application/json']?.schema;
  if (body === undefined) {
    if (op.operation.requestBody?.required) problems.push('request body required');
    return problems;
  }
  if (!schema) return [...problems, 'the operation takes no JSON body'];
  const { ajv, cache } = load();
  const key = `${op.template} ${JSON.stringify(schema)}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(convert(schema) as Schema);
    cache.set(key, validate);
  }
  if (!validate(body)) {
    for (const e of validate.errors ?? []) problems.push(`body${e.instancePath} ${e.message ?? 'invalid'}`);
  }
  return problems;
}

/**
 * What is wrong with the fake's own JSON answer `body` with `status` to `op` (empty when nothing):
 * keeps the fake honest about the shapes reviewbot reads.
 */
export function validateResponse(op: MatchedOperation, status: number, body: unknown): string[] {
  const schema = op.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
  if (!schema || body === undefined) return [];
  const { ajv, cache } = load();
  const key = `response ${op.template} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(convert(schema) as Schema);
    cache.set(key, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `response ${status}${e.instancePath} ${e.message ?? 'invalid'}`);
}
