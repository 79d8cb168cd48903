/**
 * What the fake adds to a created Job the way the API server and its defaulting do (name, uid,
 * selector, controller labels, default fields), the default container -> local command mapping,
 * and the kubeconfig file it writes for clients.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Container, V1Job } from '@kubernetes/client-node';
import { timestamp } from './job-controller.js';
import type { LocalCommand } from './types.js';

function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'reviewbot'
    ) {
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('fake Kubernetes: cannot find the reviewbot package root');
    dir = parent;
  }
}

/**
 * The default container → local command mapping: `reviewbot …` → `node <repo>/dist/src/cli/index.js
 * …` (run `npm run build` first), `node …` → this Node binary, anything else as is.
 * @throws Error when the container has no command (the fake knows no image entrypoints).
 */
export function defaultRunCommand(container: V1Container): LocalCommand {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  const [first, ...rest] = argv;
  if (first === undefined) throw new Error('the container has no command (the fake has no image entrypoint)');
  if (first === 'reviewbot') {
    return { command: process.execPath, args: [path.join(findRepoRoot(), 'dist/src/cli/index.js'), ...rest] };
  }
  if (first === 'node') return { command: process.execPath, args: rest };
  return { command: first, args: rest };
}

/**
 * `job` (a body freshly parsed from the request, owned by the caller and changed in place) with the
 * API server's defaults and generated fields, as stored.
 */
export function applyDefaults(
  job: V1Job,
  name: string,
  namespace: string,
  uid: string,
  version: string,
): V1Job {
  const copy = job;
  const selectorLabels = { 'batch.kubernetes.io/controller-uid': uid, 'controller-uid': uid };
  const nameLabels = { 'batch.kubernetes.io/job-name': name, 'job-name': name };
  copy.metadata = {
    ...copy.metadata,
    name,
    namespace,
    uid,
    resourceVersion: version,
    generation: 1,
    creationTimestamp: timestamp() as unknown as Date,
  };
  const spec = copy.spec as NonNullable<V1Job['spec']>;
  spec.parallelism ??= 1;
  spec.completions ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  spec.template.metadata = {
    ...spec.template.metadata,
    labels: { ...spec.template.metadata?.labels, ...selectorLabels, ...nameLabels },
  };
  const pod = spec.template.spec;
  if (pod) {
    pod.terminationGracePeriodSeconds ??= 30;
    pod.dnsPolicy ??= 'ClusterFirst';
    pod.schedulerName ??= 'default-scheduler';
    for (const container of pod.containers) {
      const tag = container.image?.includes('@')
        ? 'digest'
        : (container.image?.split('/').pop()?.split(':')[1] ?? 'latest');
      container.imagePullPolicy ??= tag === 'latest' ? 'Always' : 'IfNotPresent';
      container.terminationMessagePath ??= '/dev/termination-log';
      container.terminationMessagePolicy ??= 'File';
    }
  }
  copy.status = {};
  return copy;
}

/** A kubeconfig reaching `url` with bearer `token` (plain HTTP, so TLS verification is off). */
export function kubeconfig(url: string, token: string, namespace: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: fake',
    '    cluster:',
    `      server: ${url}`,
    '      insecure-skip-tls-verify: true',
    'users:',
    '  - name: reviewbot-server',
    '    user:',
    `      token: ${token}`,
    'contexts:',
    '  - name: fake',
    '    context:',
    '      cluster: fake',
    '      user: reviewbot-server',
    `      namespace: ${namespace}`,
    'current-context: fake',
    '',
  ].join('\n');
}
