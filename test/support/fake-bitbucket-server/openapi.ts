/**
 * Checks requests to the fake Bitbucket Data Center against Atlassian's published OpenAPI 3.0
 * description of the Data Center REST API (the operations reviewbot uses, vendored in
 * `test/fixtures/bitbucket-server/openapi.subset.json`, see its README): finds the operation by
 * method and path template (`/api/latest/…`; requests arrive at `/rest/api/1.0/…`, the same API),
 * checks query parameter names and the JSON body against the operation's `requestBody` schema.
 *
 * One correction to the generated description: it types `RestComment.anchor.path` and `srcPath` as
 * `RestPath` objects, while Atlassian's own examples for "Add pull request comment" (the
 * operation's description in the same file) and every answer send them as text (`"path":
 * "path/to/file"`, `"srcPath": "path/to/file"`); both forms are accepted.
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
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

interface PathEntry {
  template: string;
  names: string[];
  regex: RegExp;
  literalChars: number;
  operations: Record<string, Operation>;
}

/** An operation found for a request. */
export interface MatchedOperation {
  template: string;
  params: Record<string, string>;
  operation: Operation;
  parameters: Parameter[];
}

const SPEC_PATH = new URL('../../fixtures/bitbucket-server/openapi.subset.json', import.meta.url);
const ID = 'https://fake-bitbucket-server.invalid/openapi.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Loaded {
  paths: PathEntry[];
  ajv: Ajv;
  cache: Map<string, ValidateFunction>;
}
let loaded: Loaded | undefined;

/** Absolute `$ref`s, documentation keys dropped, the anchor path corrections applied. */
function convert(schema: unknown, key = ''): unknown {
  if (Array.isArray(schema)) return schema.map((s) => convert(s));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [name, value] of Object.entries(schema as Schema)) {
    if (name === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\//, `${ID}#/`);
    else if (name === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([n, s]) => [n, convert(s, `${key}.${n}`)]),
      );
    } else if (name === 'description' || name === 'example' || name.startsWith('x-')) continue;
    else out[name] = convert(value, key);
  }
  if (/\.anchor\.(?:path|srcPath)$/.test(key)) return { anyOf: [{ type: 'string' }, out] };
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
  const schemas = Object.fromEntries(
    Object.entries(spec.components.schemas).map(([n, s]) => [n, convert(s, n)]),
  );
  ajv.addSchema({ $id: ID, components: { schemas } });
  const paths: PathEntry[] = Object.entries(spec.paths).map(([template, item]) => {
    const names: string[] = [];
    const pattern = template
      .split(/(\{[^}]+\})/)
      .map((part, i, all) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        // `{path}` spans segments; after a non-slash (`compare/diff{path}`) it may be empty.
        if (name === 'path') return all[i - 1]?.endsWith('/') ? '(.+)' : '((?:/.*)?)';
        return '([^/]+)';
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
      operations,
    };
  });
  paths.sort((a, b) => b.literalChars - a.literalChars);
  loaded = { paths, ajv, cache: new Map() };
  return loaded;
}

/** The operation for `method` and `path` (relative to `/rest`, as `/api/latest/…`), or undefined. */
export function matchOperation(method: string, path: string): MatchedOperation | undefined {
  for (const entry of load().paths) {
    const match = entry.regex.exec(path);
    const operation = entry.operations[method.toLowerCase()];
    if (!match || !operation) continue;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      params[name] = decodeURIComponent(match[i + 1] ?? '');
    });
    return { template: entry.template, params, operation, parameters: operation.parameters ?? [] };
  }
  return undefined;
}

function compiled(key: string, schema: Schema): ValidateFunction {
  const { ajv, cache } = load();
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(convert(schema) as Schema);
    cache.set(key, validate);
  }
  return validate;
}

/** What is wrong with a request to `op` (empty when nothing). */
export function validateRequest(op: MatchedOperation, query: URLSearchParams, body: unknown): string[] {
  const problems: string[] = [];
  const declared = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of query.keys()) {
    if (!declared.has(name)) problems.push(`undeclared query parameter ${name}`);
  }
  const content = op.operation.requestBody?.content ?? {};
  const schema = (content['application/json'] ?? content['*/*'])?.schema;
  if (body === undefined) {
    if (op.operation.requestBody?.required) problems.push('request body required');
    return problems;
  }
  if (!schema) return [...problems, 'the operation takes no JSON body'];
  const validate = compiled(`${op.template} request`, schema);
  if (!validate(body)) {
    for (const e of validate.errors ?? []) problems.push(`body${e.instancePath} ${e.message ?? 'invalid'}`);
  }
  return problems;
}

/** What is wrong with the fake's own JSON answer `body` with `status` to `op` (empty when nothing). */
export function validateResponse(op: MatchedOperation, status: number, body: unknown): string[] {
  const schema = op.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
  if (!schema || body === undefined) return [];
  const validate = compiled(`${op.template} response ${status}`, schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `response ${status}${e.instancePath} ${e.message ?? 'invalid'}`);
}
