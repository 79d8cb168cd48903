/**
 * A container's environment as the kubelet builds it (`pkg/kubelet/kubelet_pods.go`
 * `makeEnvironmentVariables`): every `envFrom` source in order (a missing, non-optional Secret is a
 * `CreateContainerConfigError`), then `env` entries, which win; each `env` value has `$(NAME)`
 * references expanded against the variables defined so far, `$$` reduced to `$`
 * (`third_party/forked/golang/expansion`). The image's environment is merged below all of it.
 */
import type { V1Container } from '@kubernetes/client-node';

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * Expands `$(NAME)` in `input` with `lookup` (undefined keeps the reference as written); `$$` → `$`;
 * any other `$` is kept. Same algorithm as Kubernetes' `expansion.Expand`.
 */
export function expandReferences(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor += 1) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') out += '$';
    else if (rest[0] === '(') {
      const close = rest.indexOf(')');
      if (close < 0) out += '$(';
      else {
        const name = rest.slice(1, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close + 1;
      }
    } else out += `$${rest[0]}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** The container environment, or why the container cannot start. */
export type PodEnvResult =
  | { ok: true; env: Record<string, string> }
  | { ok: false; reason: 'CreateContainerConfigError'; message: string };

/** What the environment is built from. */
export interface PodEnvSources {
  container: V1Container;
  /** The namespace's Secrets: name → entries. */
  secrets: ReadonlyMap<string, Record<string, string>>;
  /** Values of `fieldRef` paths (`metadata.name`, `metadata.namespace`, …). */
  fields: Record<string, string>;
  /** The image's environment, below everything else. */
  baseEnv: NodeJS.ProcessEnv;
}

/**
 * Builds the container's environment. Keys of a Secret that are not valid variable names are
 * skipped (the kubelet records an event). ConfigMaps do not exist in the fake: a `configMapRef` or
 * `configMapKeyRef` that is not optional fails like a missing one.
 */
export function buildPodEnv(sources: PodEnvSources): PodEnvResult {
  const { container, secrets } = sources;
  const defined: Record<string, string> = {};
  const fail = (message: string): PodEnvResult => ({
    ok: false,
    reason: 'CreateContainerConfigError',
    message,
  });
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.secretRef) {
      const secret = secrets.get(from.secretRef.name ?? '');
      if (!secret) {
        if (from.secretRef.optional) continue;
        return fail(`secret "${from.secretRef.name}" not found`);
      }
      for (const [key, value] of Object.entries(secret)) {
        if (ENV_NAME.test(prefix + key)) defined[prefix + key] = value;
      }
    } else if (from.configMapRef && !from.configMapRef.optional) {
      return fail(`configmap "${from.configMapRef.name}" not found`);
    }
  }
  for (const entry of container.env ?? []) {
    const lookup = (name: string): string | undefined => defined[name];
    if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      const value = secrets.get(ref.name ?? '')?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        return fail(`couldn't find key ${ref.key} in Secret ${ref.name}`);
      }
      defined[entry.name] = value;
    } else if (entry.valueFrom?.fieldRef) {
      defined[entry.name] = sources.fields[entry.valueFrom.fieldRef.fieldPath] ?? '';
    } else if (entry.valueFrom) {
      if (!entry.valueFrom.configMapKeyRef?.optional) return fail(`unsupported valueFrom for ${entry.name}`);
    } else {
      defined[entry.name] = expandReferences(entry.value ?? '', lookup);
    }
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(sources.baseEnv)) if (value !== undefined) env[name] = value;
  return { ok: true, env: { ...env, ...defined } };
}
