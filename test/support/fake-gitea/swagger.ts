/**
 * Checks requests to (and responses of) the fake Gitea against Gitea's published Swagger 2.0
 * description (`test/fixtures/gitea/swagger.v1.22.json`, see its README): finds the operation by
 * method and path template, validates path and query parameters (text coerced to the declared
 * types, as Gitea's binding parses them) and the JSON body. Gitea's Go decoder ignores unknown JSON
 * fields silently, so a body key the operation does not declare is reported too: it means the
 * product meant something Gitea would not do. Responses are checked with every field nullable
 * (Gitea serializes absent objects as `null`; Swagger 2.0 cannot say so).
 *
 * Operations newer than the vendored release are declared in `EXTRA_OPERATIONS`.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;

/** A Swagger 2.0 parameter. */
interface SwaggerParameter {
  name: string;
  in: 'path' | 'query' | 'body' | 'header' | 'formData';
  required?: boolean;
  type?: string;
  format?: string;
  enum?: unknown[];
  items?: Schema;
  schema?: Schema;
}

/** The parts of a Swagger operation the fake reads. */
export interface SwaggerOperation {
  operationId: string;
  parameters?: SwaggerParameter[];
  responses: Record<string, { $ref?: string; schema?: Schema }>;
}

interface PathEntry {
  template: string;
  names: string[];
  regex: RegExp;
  literalChars: number;
  operations: Record<string, SwaggerOperation>;
}

/** An operation found for a request. */
export interface MatchedOperation {
  operationId: string;
  template: string;
  params: Record<string, string>;
  operation: SwaggerOperation;
}

const SPEC_PATH = new URL('../../fixtures/gitea/swagger.v1.22.json', import.meta.url);
const ID = 'https://fake-gitea.invalid/swagger.json';
const INT = (name: string, where: 'path' | 'query' = 'path'): SwaggerParameter => ({
  name,
  in: where,
  required: where === 'path',
  type: 'integer',
  format: 'int64',
});
const STR = (name: string): SwaggerParameter => ({ name, in: 'path', required: true, type: 'string' });

/**
 * Operations of Gitea releases after 1.22 that reviewbot uses: resolving a conversation
 * (Gitea 1.26, `POST .../pulls/{index}/comments/{id}/resolve`, no body, 204).
 */
export const EXTRA_OPERATIONS: Record<string, Record<string, SwaggerOperation>> = {
  '/repos/{owner}/{repo}/pulls/{index}/comments/{id}/resolve': {
    post: {
      operationId: 'repoResolvePullReviewComment',
      parameters: [STR('owner'), STR('repo'), INT('index'), INT('id')],
      responses: { '204': {}, '404': {} },
    },
  },
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Loaded {
  paths: PathEntry[];
  responses: Record<string, { schema?: Schema }>;
  open: Ajv;
  closed: Ajv;
  coercing: Ajv;
  cache: Map<string, ValidateFunction | null>;
}
let loaded: Loaded | undefined;

/** Rewrites refs to absolute ones; `closed` adds `additionalProperties: false`, `nullable` allows null. */
function convert(schema: unknown, mode: { closed: boolean; nullable: boolean }): unknown {
  if (Array.isArray(schema)) return schema.map((s) => convert(s, mode));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\//, `${ID}#/`);
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, inner]) => [name, convert(inner, mode)]),
      );
    } else if (key.startsWith('x-') || key === 'example' || key === 'title' || key === 'description')
      continue;
    else out[key] = convert(value, mode);
  }
  if (mode.closed && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  if (mode.nullable) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (typeof out.$ref === 'string') return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] };
  }
  return out;
}

function createAjv(definitions: Schema, mode: { closed: boolean; nullable: boolean }, coerce = false): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    logger: false,
    coerceTypes: coerce ? 'array' : false,
  });
  addFormats(ajv);
  for (const name of ['int64', 'uint64', 'int32', 'double', 'float', 'binary', 'byte'])
    ajv.addFormat(name, true);
  ajv.addSchema({ $id: ID, definitions: convert(definitions, mode) });
  return ajv;
}

function load(): Loaded {
  if (loaded) return loaded;
  const spec = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as {
    paths: Record<string, Record<string, SwaggerOperation>>;
    definitions: Schema;
    responses: Record<string, { schema?: Schema }>;
  };
  const all = { ...spec.paths, ...EXTRA_OPERATIONS };
  const paths: PathEntry[] = Object.entries(all).map(([template, ops]) => {
    const names: string[] = [];
    const pattern = template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{([^}]+)\}/g, (_, name: string) => {
        names.push(name);
        return name === 'filepath' || name === 'basehead' ? '(.+)' : '([^/]+?)';
      });
    const operations: Record<string, SwaggerOperation> = {};
    for (const [method, op] of Object.entries(ops))
      if (method !== 'parameters') operations[method.toUpperCase()] = op;
    return {
      template,
      names,
      regex: new RegExp(`^${pattern}$`),
      literalChars: template.replace(/\{[^}]+\}/g, '').length,
      operations,
    };
  });
  paths.sort((a, b) => b.literalChars - a.literalChars);
  loaded = {
    paths,
    responses: spec.responses,
    open: createAjv(spec.definitions, { closed: false, nullable: true }),
    closed: createAjv(spec.definitions, { closed: true, nullable: false }),
    coercing: createAjv(spec.definitions, { closed: false, nullable: false }, true),
    cache: new Map(),
  };
  return loaded;
}

function compiled(key: string, ajv: Ajv, build: () => Schema | undefined): ValidateFunction | null {
  const l = load();
  const hit = l.cache.get(key);
  if (hit !== undefined) return hit;
  const schema = build();
  const fn = schema ? ajv.compile(schema) : null;
  l.cache.set(key, fn);
  return fn;
}

function errors(fn: ValidateFunction, prefix: string): string[] {
  return (fn.errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify(e.params.allowedValues)})`
          : '';
    return `${prefix}${e.instancePath} ${e.message ?? 'is invalid'}${extra}`;
  });
}

/** The operation of `method` (upper case) on `path` (below `/api/v1`), or undefined. */
export function matchOperation(method: string, path: string): MatchedOperation | undefined {
  for (const entry of load().paths) {
    const operation = entry.operations[method];
    if (!operation) continue;
    const m = entry.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1] ?? '');
    });
    return { operationId: operation.operationId, template: entry.template, params, operation };
  }
  return undefined;
}

function parameterSchema(op: MatchedOperation, where: 'path' | 'query'): Schema | undefined {
  const properties: Schema = {};
  const required: string[] = [];
  for (const p of op.operation.parameters ?? []) {
    if (p.in !== where) continue;
    const { type, format, enum: values, items } = p;
    properties[p.name] = Object.fromEntries(
      Object.entries({ type, format, enum: values, items }).filter(([, v]) => v !== undefined),
    );
    if (p.required) required.push(p.name);
  }
  if (Object.keys(properties).length === 0) return undefined;
  // Gitea ignores query parameters it does not declare; so does this check.
  return { type: 'object', properties, required };
}

/**
 * Problems of a request to `op`: parameters and body (`body` undefined = none sent). Messages name
 * the place, e.g. `body/comments/0 must NOT have additional properties (new_line)`.
 */
export function validateRequest(op: MatchedOperation, query: URLSearchParams, body: unknown): string[] {
  const l = load();
  const problems: string[] = [];
  for (const where of ['path', 'query'] as const) {
    const fn = compiled(`${op.operationId} ${where}`, l.coercing, () => parameterSchema(op, where));
    const data = where === 'path' ? { ...op.params } : Object.fromEntries(query);
    if (fn && !fn(data)) problems.push(...errors(fn, where));
  }
  const bodyParam = (op.operation.parameters ?? []).find((p) => p.in === 'body');
  if (body === undefined) {
    if (bodyParam?.required) problems.push('body is required');
    return problems;
  }
  if (!bodyParam) {
    problems.push('body: the operation takes no body');
    return problems;
  }
  const fn = compiled(
    `${op.operationId} body`,
    l.closed,
    () => convert(bodyParam.schema ?? {}, { closed: true, nullable: false }) as Schema,
  );
  if (fn && !fn(body)) problems.push(...errors(fn, 'body'));
  return problems;
}

/** Problems of a JSON response the fake is about to send (empty when valid or undocumented). */
export function validateResponse(op: MatchedOperation, status: number, body: unknown): string[] {
  const l = load();
  const fn = compiled(`${op.operationId} response ${status}`, l.open, () => {
    let response = op.operation.responses[String(status)];
    if (response?.$ref) response = l.responses[response.$ref.split('/').pop() ?? ''];
    return response?.schema
      ? (convert(response.schema, { closed: false, nullable: true }) as Schema)
      : undefined;
  });
  if (!fn || fn(body)) return [];
  return errors(fn, 'response');
}
