import type { V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeKubernetes, type FakeKubernetes } from './index.js';
import { api, createJob, JOBS, nodeJob } from './test-kit.js';

let fake: FakeKubernetes | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(): Promise<FakeKubernetes> {
  fake = await startFakeKubernetes({ killGraceMs: 300 });
  return fake;
}

describe('startFakeKubernetes: the API', () => {
  const invalid: [string, (job: V1Job) => void, RegExp][] = [
    [
      'no restartPolicy',
      (j) => delete j.spec?.template.spec?.restartPolicy,
      /restartPolicy: Unsupported value: "Always"/,
    ],
    [
      'a bad container name',
      (j) => Object.assign(j.spec?.template.spec?.containers[0] ?? {}, { name: 'Job_1' }),
      /containers\[0\]\.name: Invalid value/,
    ],
    [
      'a bad label value',
      (j) => Object.assign(j.metadata?.labels ?? {}, { 'reviewbot/repo': '-acme' }),
      /metadata\.labels: Invalid value: "-acme"/,
    ],
    [
      'a mount of no volume',
      (j) => delete j.spec?.template.spec?.volumes,
      /volumeMounts\[0\]\.name: Not found: "workspace"/,
    ],
    [
      'a wrong type (schema)',
      (j) => Object.assign(j.spec ?? {}, { backoffLimit: 'none' }),
      /spec\.backoffLimit: Invalid value/,
    ],
    [
      'a bad quantity (schema)',
      (j) =>
        Object.assign(j.spec?.template.spec?.containers[0] ?? {}, { resources: { limits: { cpu: 'lots' } } }),
      /resources\.limits\.cpu/,
    ],
    [
      'requests over limits',
      (j) =>
        Object.assign(j.spec?.template.spec?.containers[0] ?? {}, {
          resources: { requests: { cpu: '2' }, limits: { cpu: '500m' } },
        }),
      /less than or equal to cpu limit/,
    ],
    [
      'a zero deadline',
      (j) => Object.assign(j.spec ?? {}, { activeDeadlineSeconds: 0 }),
      /activeDeadlineSeconds: Invalid value: 0/,
    ],
    ['no name', (j) => delete j.metadata?.generateName, /name or generateName is required/],
    [
      'a name over 63 characters',
      (j) => Object.assign(j.metadata ?? {}, { name: 'a'.repeat(64) }),
      /metadata\.name: Invalid value/,
    ],
  ];

  it.each(invalid)('answers 422 to a Job with %s and creates nothing', async (_what, mutate, message) => {
    const k8s = await start();
    const job = nodeJob('process.exit(0)');
    mutate(job);
    const answer = await api(k8s, 'POST', JOBS, job);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(String(answer.body.message)).toMatch(message);
    expect(k8s.jobs).toEqual([]);
    expect(k8s.rejections).toHaveLength(1);
  });

  it('cuts a long generateName to 58 characters like the API server', async () => {
    const k8s = await start();
    const name = await createJob(k8s, {
      ...nodeJob('process.exit(0)'),
      metadata: { generateName: `reviewbot-${'x'.repeat(80)}-` },
    });
    expect(name).toHaveLength(63);
  });

  it.each([
    ['a wrong token', 401, JOBS, 'wrong'],
    ['another namespace', 403, '/apis/batch/v1/namespaces/default/jobs'],
    ['the jobs/status subresource', 403, `${JOBS}/x/status`],
    ['pods', 403, '/api/v1/namespaces/reviewbot/pods'],
    ['jobs of every namespace', 403, '/apis/batch/v1/jobs'],
    ['a Job that does not exist', 404, `${JOBS}/nope`],
  ])('answers a GET of %s with %i', async (_what, status, urlPath, token?: string) => {
    const k8s = await start();
    const answer = await api(k8s, 'GET', urlPath, undefined, token ?? k8s.token);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ kind: 'Status', code: status });
  });

  it.each([
    ['reviewbot/job-id=job-2', ['b']],
    ['reviewbot/pr-number==7', ['a', 'b']],
    ['reviewbot/pr-number=7,reviewbot/job-id!=job-2', ['a']],
    ['reviewbot/job-id in (job-1, job-3)', ['a', 'c']],
    ['reviewbot/job-id notin (job-1)', ['b', 'c']],
    ['reviewbot/pr-number', ['a', 'b']],
    ['!reviewbot/pr-number', ['c']],
  ])('lists Jobs matching %s', async (selector, expected) => {
    const k8s = await start();
    k8s.holdJobs();
    const names: Record<string, string> = {};
    const labelSets: Record<string, Record<string, string>> = {
      a: { 'reviewbot/job-id': 'job-1', 'reviewbot/pr-number': '7' },
      b: { 'reviewbot/job-id': 'job-2', 'reviewbot/pr-number': '7' },
      c: { 'reviewbot/job-id': 'job-3' },
    };
    for (const [key, labels] of Object.entries(labelSets)) {
      const job = nodeJob('process.exit(0)');
      job.metadata = { generateName: 'reviewbot-x-', labels };
      names[await createJob(k8s, job)] = key;
    }
    const answer = await api(k8s, 'GET', `${JOBS}?labelSelector=${encodeURIComponent(selector)}`);
    expect(answer.status).toBe(200);
    const items = answer.body.items as V1Job[];
    expect(items.map((j) => names[j.metadata?.name ?? '']).sort()).toEqual(expected);
    expect(items.every((j) => j.kind === undefined)).toBe(true);
  });
});
