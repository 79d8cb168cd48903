/**
 * Validation of a Job body as the API server does it on `POST .../jobs`: the official OpenAPI schema
 * (through `kubernetes-models`), then the checks of `k8s.io/kubernetes/pkg/apis/batch/validation`
 * and `core/validation` that a schema cannot express (names, labels, restart policy, volume
 * references, requests ≤ limits, …). Returns the answer the server would give, or undefined.
 */
import type { V1Container, V1Job, V1PodSpec } from '@kubernetes/client-node';
import { Job } from 'kubernetes-models/batch/v1/Job';

/** One `details.causes` entry of a 422 Status. */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** A refused body: 400 BadRequest (malformed) or 422 Invalid (with causes). */
export interface JobRejection {
  status: 400 | 422;
  reason: 'BadRequest' | 'Invalid';
  message: string;
  causes: StatusCause[];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** True when `name` is a valid Job name: a DNS-1123 subdomain of at most 63 characters (the
 * `batch.kubernetes.io/job-name` pod label must hold it). */
export function isValidJobName(name: string): boolean {
  return name.length <= 63 && DNS_SUBDOMAIN.test(name);
}

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The numeric value of a Kubernetes quantity (`500m` → 0.5, `1Gi` → 1073741824), or NaN. */
export function parseQuantity(text: string): number {
  const match = /^([+-]?[0-9]*\.?[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/.exec(text);
  if (!match) return Number.NaN;
  const suffix = match[2] ?? '';
  const base = Number(match[1]);
  if (/^[eE]/.test(suffix)) return base * 10 ** Number(suffix.slice(1));
  return base * (SUFFIXES[suffix] ?? Number.NaN);
}

class Causes {
  readonly list: StatusCause[] = [];
  invalid(field: string, value: unknown, detail: string): void {
    this.list.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
    });
  }
  required(field: string, detail: string): void {
    this.list.push({ reason: 'FieldValueRequired', field, message: `Required value: ${detail}` });
  }
  notFound(field: string, value: unknown): void {
    this.list.push({ reason: 'FieldValueNotFound', field, message: `Not found: ${JSON.stringify(value)}` });
  }
  duplicate(field: string, value: unknown): void {
    this.list.push({
      reason: 'FieldValueDuplicate',
      field,
      message: `Duplicate value: ${JSON.stringify(value)}`,
    });
  }
  unsupported(field: string, value: unknown, allowed: string[]): void {
    const supported = allowed.map((a) => `"${a}"`).join(', ');
    this.list.push({
      reason: 'FieldValueNotSupported',
      field,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
    });
  }
}

function checkLabels(c: Causes, field: string, labels: Record<string, string> | undefined): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : '';
    const name = slash >= 0 ? key.slice(slash + 1) : key;
    const keyOk =
      name.length <= 63 &&
      LABEL_NAME.test(name) &&
      (slash < 0 || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix)));
    if (!keyOk) c.invalid(field, key, 'name part must consist of alphanumeric characters, "-", "_" or "."');
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) {
      c.invalid(
        `${field}`,
        value,
        'a valid label must be an empty string or consist of alphanumeric characters, "-", "_" or ".", and must start and end with an alphanumeric character (at most 63 characters)',
      );
    }
  }
}

function checkContainer(c: Causes, field: string, container: V1Container, volumes: Set<string>): void {
  if (!DNS_LABEL.test(container.name ?? '') || (container.name ?? '').length > 63) {
    c.invalid(
      `${field}.name`,
      container.name,
      'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "-"',
    );
  }
  if (!container.image?.trim()) c.required(`${field}.image`, 'image is required');
  for (const [i, env] of (container.env ?? []).entries()) {
    if (!ENV_NAME.test(env.name ?? '')) {
      c.invalid(
        `${field}.env[${i}].name`,
        env.name,
        'a valid environment variable name must consist of alphabetic characters, digits, "_", "-", or "."',
      );
    }
    if (env.value !== undefined && env.value !== '' && env.valueFrom) {
      c.invalid(`${field}.env[${i}].valueFrom`, '', 'may not be specified when `value` is not empty');
    }
  }
  for (const [i, source] of (container.envFrom ?? []).entries()) {
    const ref = source.secretRef ?? source.configMapRef;
    if (!ref) c.required(`${field}.envFrom[${i}]`, 'must specify one of: `configMapRef` or `secretRef`');
    else if (!DNS_SUBDOMAIN.test(ref.name ?? ''))
      c.invalid(`${field}.envFrom[${i}].name`, ref.name, 'a lowercase RFC 1123 subdomain');
  }
  const paths = new Set<string>();
  for (const [i, mount] of (container.volumeMounts ?? []).entries()) {
    if (!volumes.has(mount.name)) c.notFound(`${field}.volumeMounts[${i}].name`, mount.name);
    if (!mount.mountPath?.startsWith('/'))
      c.invalid(`${field}.volumeMounts[${i}].mountPath`, mount.mountPath, 'must be an absolute path');
    if (paths.has(mount.mountPath))
      c.invalid(`${field}.volumeMounts[${i}].mountPath`, mount.mountPath, 'must be unique');
    paths.add(mount.mountPath);
  }
  const { requests = {}, limits = {} } = container.resources ?? {};
  for (const [name, request] of Object.entries(requests)) {
    const limit = (limits as Record<string, string>)[name];
    if (limit !== undefined && parseQuantity(String(request)) > parseQuantity(String(limit))) {
      c.invalid(
        `${field}.resources.requests`,
        request,
        `must be less than or equal to ${name} limit of ${limit}`,
      );
    }
  }
  const sc = container.securityContext;
  if (sc?.allowPrivilegeEscalation === false && sc.privileged === true) {
    c.invalid(
      `${field}.securityContext`,
      sc,
      'cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
    );
  }
}

function checkPod(c: Causes, field: string, pod: V1PodSpec | undefined): void {
  if (!pod) {
    c.required(`${field}`, 'pod template spec is required');
    return;
  }
  if (pod.restartPolicy !== 'Never' && pod.restartPolicy !== 'OnFailure') {
    c.unsupported(`${field}.restartPolicy`, pod.restartPolicy ?? 'Always', ['OnFailure', 'Never']);
  }
  const volumes = new Set<string>();
  for (const [i, volume] of (pod.volumes ?? []).entries()) {
    if (!DNS_LABEL.test(volume.name ?? ''))
      c.invalid(`${field}.volumes[${i}].name`, volume.name, 'a lowercase RFC 1123 label');
    if (volumes.has(volume.name)) c.duplicate(`${field}.volumes[${i}].name`, volume.name);
    volumes.add(volume.name);
    const sources = Object.keys(volume).filter((k) => k !== 'name');
    if (sources.length !== 1) c.required(`${field}.volumes[${i}]`, 'must specify exactly one volume type');
  }
  if ((pod.containers ?? []).length === 0)
    c.required(`${field}.containers`, 'at least one container is required');
  const names = new Set<string>();
  for (const [i, container] of (pod.containers ?? []).entries()) {
    if (names.has(container.name)) c.duplicate(`${field}.containers[${i}].name`, container.name);
    names.add(container.name);
    checkContainer(c, `${field}.containers[${i}]`, container, volumes);
  }
}

function schemaCauses(body: unknown): StatusCause[] {
  try {
    new Job(body as ConstructorParameters<typeof Job>[0]).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors ?? [];
    if (errors.length === 0) return [{ reason: 'FieldValueInvalid', field: '', message: String(error) }];
    return errors.map((e) => ({
      reason: 'FieldValueInvalid',
      field: e.instancePath
        .replace(/^\//, '')
        .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
        .replace(/\//g, '.'),
      message: `Invalid value: ${e.message ?? 'does not match the schema'}`,
    }));
  }
}

/**
 * Validates `body` for `POST /apis/batch/v1/namespaces/<namespace>/jobs`. Returns undefined when the
 * API server would accept it, else its 400/422 answer. `metadata.name` of a `generateName` Job is
 * checked after generation (`isValidJobName`).
 */
export function validateJob(body: unknown, namespace: string): JobRejection | undefined {
  const bad = (message: string): JobRejection => ({ status: 400, reason: 'BadRequest', message, causes: [] });
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return bad('the body of the request was in an unknown format');
  const job = body as V1Job;
  if (job.apiVersion !== 'batch/v1' || job.kind !== 'Job') {
    return bad(
      `the object's apiVersion/kind (${String(job.apiVersion)}/${String(job.kind)}) is not batch/v1 Job`,
    );
  }
  if (job.metadata?.namespace !== undefined && job.metadata.namespace !== namespace) {
    return bad('the namespace of the provided object does not match the namespace sent on the request');
  }
  const c = new Causes();
  c.list.push(...schemaCauses(body));
  const meta = job.metadata ?? {};
  if (!meta.name && !meta.generateName) c.required('metadata.name', 'name or generateName is required');
  if (meta.name && !isValidJobName(meta.name)) {
    c.invalid('metadata.name', meta.name, 'a lowercase RFC 1123 subdomain of at most 63 characters');
  }
  checkLabels(c, 'metadata.labels', meta.labels);
  checkLabels(c, 'spec.template.metadata.labels', job.spec?.template?.metadata?.labels);
  const spec = job.spec;
  if (!spec?.template) c.required('spec.template', 'template is required');
  else checkPod(c, 'spec.template.spec', spec.template.spec);
  for (const key of ['backoffLimit', 'ttlSecondsAfterFinished'] as const) {
    const value = spec?.[key];
    if (value !== undefined && value < 0)
      c.invalid(`spec.${key}`, value, 'must be greater than or equal to 0');
  }
  if (spec?.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds <= 0) {
    c.invalid('spec.activeDeadlineSeconds', spec.activeDeadlineSeconds, 'must be greater than 0');
  }
  if (c.list.length === 0) return undefined;
  const name = meta.name ?? meta.generateName ?? '';
  const details = c.list.map((cause) => `${cause.field}: ${cause.message}`);
  const joined = details.length === 1 ? details[0] : `[${details.join(', ')}]`;
  return {
    status: 422,
    reason: 'Invalid',
    message: `Job.batch "${name}" is invalid: ${joined}`,
    causes: c.list,
  };
}
