/**
 * Turns failures of Kubernetes API calls into `PlatformError`s whose message says what to do: the
 * HTTP status, the API server's own `Status.message`, and the likely fix (RBAC, namespace,
 * credentials). Never includes request headers or tokens.
 */
import { ApiException } from '@kubernetes/client-node';
import { PlatformError } from '../../errors.js';

/** Longest part of the API server's message kept in an error, characters. */
const MAX_SERVER_MESSAGE = 500;

/** What was being done, e.g. `{ verb: 'create', what: 'a Job', namespace: 'reviewbot' }`. */
export interface KubernetesAction {
  verb: 'create' | 'get' | 'list' | 'delete';
  what: string;
  namespace: string;
}

function serverMessage(body: unknown): string | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return body.trim().slice(0, MAX_SERVER_MESSAGE) || undefined;
    }
  }
  if (value && typeof value === 'object' && 'message' in value && typeof value.message === 'string') {
    return value.message.slice(0, MAX_SERVER_MESSAGE);
  }
  return undefined;
}

function hint(status: number, action: KubernetesAction): string {
  const ns = action.namespace;
  switch (status) {
    case 401:
      return 'the Kubernetes API rejected the credentials; check the ServiceAccount token (in a cluster) or KUBECONFIG';
    case 403:
      return (
        `the server's ServiceAccount lacks the Role on batch/jobs (verbs create, get, list, watch, delete) ` +
        `in namespace ${ns}; apply deploy/base/role.yaml and rolebinding.yaml there, or set ` +
        `kubernetes.namespace to the namespace the Role is in`
      );
    case 404:
      return action.verb === 'create' || action.verb === 'list'
        ? `namespace ${ns} does not exist; create it or fix kubernetes.namespace`
        : 'not found';
    case 409:
      return 'a Job with the generated name already exists; retry';
    case 422:
      return 'the API server rejected the Job as invalid; check the kubernetes.* settings (image, resources)';
    case 429:
      return 'the API server is rate limiting requests; retry later';
    default:
      return status >= 500 ? 'the API server failed; retry later' : 'unexpected answer';
  }
}

/**
 * Wraps `error` from a `@kubernetes/client-node` call in a `PlatformError`: `status` is the HTTP
 * status (undefined when the API was unreachable).
 * A 403 says "the server's ServiceAccount lacks the Role on batch/jobs" and names the namespace.
 */
export function kubernetesError(error: unknown, action: KubernetesAction): PlatformError {
  const doing = `${action.verb} ${action.what} in namespace ${action.namespace}`;
  if (error instanceof ApiException) {
    const status = error.code;
    const detail = serverMessage(error.body);
    return new PlatformError(
      `Kubernetes API: cannot ${doing} (HTTP ${status}${detail ? `: ${detail}` : ''}): ${hint(status, action)}`,
      { status, cause: error },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return new PlatformError(
    `Kubernetes API: cannot ${doing}: ${reason}${cause}; is the API server reachable (in-cluster service account or KUBECONFIG)?`,
    { cause: error },
  );
}
