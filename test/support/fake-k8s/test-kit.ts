/**
 * Helpers for tests of the fake Kubernetes API server: a minimal Job running `node -e`, raw HTTP
 * calls with the fake's token, and condition summaries.
 */
import type { V1Job } from '@kubernetes/client-node';
import type { FakeKubernetes } from './types.js';

/** The Jobs collection of namespace `reviewbot`. */
export const JOBS = '/apis/batch/v1/namespaces/reviewbot/jobs';

/** A Job running `node -e script` (the default command mapping turns `node` into this Node). */
export function nodeJob(
  script: string,
  extra: { spec?: Partial<V1Job['spec']>; pod?: object; container?: object } = {},
): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      generateName: 'reviewbot-acme-widgets-7-',
      labels: { 'reviewbot/job-id': 'job-1', 'reviewbot/pr-number': '7' },
    },
    spec: {
      backoffLimit: 0,
      ...extra.spec,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'job',
              image: 'ghcr.io/acme/reviewbot:1.0.0',
              command: ['node', '-e', script],
              volumeMounts: [
                { name: 'workspace', mountPath: '/workspace' },
                { name: 'tmp', mountPath: '/tmp' },
              ],
              ...extra.container,
            },
          ],
          volumes: [
            { name: 'workspace', emptyDir: {} },
            { name: 'tmp', emptyDir: {} },
          ],
          ...extra.pod,
        },
      },
    },
  };
}

/** One API call with the fake's bearer token (or `token`); the JSON answer. */
export async function api(
  k8s: FakeKubernetes,
  method: string,
  urlPath: string,
  body?: unknown,
  token = k8s.token,
) {
  const response = await fetch(`${k8s.url}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & V1Job };
}

/** Creates `job` in `reviewbot`; its generated name. Throws unless the answer is 201. */
export async function createJob(k8s: FakeKubernetes, job: V1Job): Promise<string> {
  const answer = await api(k8s, 'POST', JOBS, job);
  if (answer.status !== 201)
    throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.metadata?.name ?? '';
}

/** `type:reason` of each condition of `job`. */
export function conditions(job: V1Job | undefined): string[] {
  return (job?.status?.conditions ?? []).map((c) => `${c.type}:${c.reason}`);
}
