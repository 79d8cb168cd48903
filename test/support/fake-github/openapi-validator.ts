/**
 * Checks requests to (and responses of) the fake against GitHub's OpenAPI description: finds the
 * operation by method and path template, validates path and query parameters (string values
 * coerced to the declared types, as GitHub parses them) and the JSON request body (no coercion).
 *
 * The description is loaded on first use and, with every compiled validator, cached for the
 * process: it is read-only, 13 MB, and shared by every fake a test file starts.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  convertSchema,
  loadOpenApiSpec,
  SPEC_ID,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiSpec,
  type Schema,
} from './openapi-spec.js';

/** An operation found for a request. */
export interface MatchedOperation {
  operationId: string;
  /** Path template, e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`. */
  template: string;
  /** Decoded path parameters. */
  params: Record<string, string>;
  operation: OpenApiOperation;
}

/** Problems found in one part of a request; empty when valid. */
export interface RequestProblems {
  parameters: string[];
  body: string[];
}

interface Validators {
  spec: OpenApiSpec;
  coercing: Ajv;
  strict: Ajv;
  cache: Map<string, ValidateFunction | null>;
}

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const NO_OP_FORMATS = ['int32', 'int64', 'double', 'binary', 'repo.nwo', 'timestamp'];
let shared: Validators | undefined;

function createAjv(spec: OpenApiSpec, coerce: boolean): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    logger: false,
    coerceTypes: coerce ? 'array' : false,
  });
  addFormats(ajv);
  for (const name of NO_OP_FORMATS) ajv.addFormat(name, true);
  ajv.addSchema({ $id: SPEC_ID, components: { schemas: spec.componentSchemas } });
  return ajv;
}

function validators(): Validators {
  if (!shared) {
    const spec = loadOpenApiSpec();
    shared = { spec, coercing: createAjv(spec, true), strict: createAjv(spec, false), cache: new Map() };
  }
  return shared;
}

function compileCached(key: string, ajv: Ajv, build: () => Schema | undefined): ValidateFunction | null {
  const v = validators();
  const hit = v.cache.get(key);
  if (hit !== undefined) return hit;
  const schema = build();
  const compiled = schema ? ajv.compile(schema) : null;
  v.cache.set(key, compiled);
  return compiled;
}

function formatErrors(fn: ValidateFunction, prefix: string): string[] {
  return (fn.errors ?? []).map((e) => {
    const where = `${prefix}${e.instancePath}`;
    const extra = e.keyword === 'enum' ? ` (${JSON.stringify(e.params.allowedValues)})` : '';
    return `${where || prefix || '/'} ${e.message ?? 'is invalid'}${extra}`;
  });
}

/**
 * Finds the operation for `method` (upper case) and `path` (no query). Prefers the template with
 * the most literal segments when several match. Returns undefined when GitHub has no such operation.
 */
export function matchOperation(method: string, path: string): MatchedOperation | undefined {
  for (const entry of validators().spec.paths) {
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

function resolveParameter(spec: OpenApiSpec, p: OpenApiParameter | { $ref: string }): OpenApiParameter {
  if ('$ref' in p) {
    const found = spec.parameters[p.$ref.split('/').pop() ?? ''];
    if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
    return found;
  }
  return p;
}

function parameterSchema(op: MatchedOperation, location: 'path' | 'query'): Schema | undefined {
  const spec = validators().spec;
  const properties: Schema = {};
  const required: string[] = [];
  for (const ref of op.operation.parameters ?? []) {
    const p = resolveParameter(spec, ref);
    if (p.in !== location) continue;
    properties[p.name] = convertSchema(p.schema ?? {});
    if (p.required || location === 'path') required.push(p.name);
  }
  if (Object.keys(properties).length === 0) return undefined;
  return { type: 'object', properties, required };
}

function queryObject(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const all = query.getAll(key);
    out[key] = all.length === 1 ? all[0] : all;
  }
  return out;
}

/**
 * Validates the parameters and the body of a request to `op`. `body` is the parsed JSON body, or
 * undefined when the request had none. Returns the problems found per part (messages name the
 * offending location, e.g. `body/comments/0/side must be equal to one of the allowed values`).
 */
export function validateRequest(
  op: MatchedOperation,
  query: URLSearchParams,
  body: unknown,
): RequestProblems {
  const v = validators();
  const problems: RequestProblems = { parameters: [], body: [] };
  for (const location of ['path', 'query'] as const) {
    const fn = compileCached(`${op.operationId} ${location}`, v.coercing, () =>
      parameterSchema(op, location),
    );
    const data = location === 'path' ? { ...op.params } : queryObject(query);
    if (fn && !fn(data)) problems.parameters.push(...formatErrors(fn, location));
  }
  const requestBody = op.operation.requestBody;
  const jsonSchema = requestBody?.content?.['application/json']?.schema;
  if (body === undefined) {
    if (requestBody?.required) problems.body.push('body is required');
    return problems;
  }
  if (!jsonSchema) return problems;
  const fn = compileCached(`${op.operationId} body`, v.strict, () => convertSchema(jsonSchema) as Schema);
  if (fn && !fn(body)) problems.body.push(...formatErrors(fn, 'body'));
  return problems;
}

/**
 * Validates a JSON response body the fake is about to send for `op` with `status` against the
 * documented response schema. Returns problems (empty when valid or when nothing is documented).
 */
export function validateResponse(op: MatchedOperation, status: number, body: unknown): string[] {
  const v = validators();
  const fn = compileCached(`${op.operationId} response ${status}`, v.strict, () => {
    let response = op.operation.responses[String(status)] ?? op.operation.responses.default;
    if (response?.$ref) response = v.spec.responses[response.$ref.split('/').pop() ?? ''];
    const schema = response?.content?.['application/json']?.schema;
    return schema ? (convertSchema(schema) as Schema) : undefined;
  });
  if (!fn || fn(body)) return [];
  return formatErrors(fn, 'response');
}
