import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startFakeKubernetes,
  type FakeKubernetes,
  type FakeKubernetesOptions,
} from '../../../test/support/fake-k8s/index.js';
import { rawConfigSchema, type RawConfig } from '../../config/schema.js';
import { ConfigError, PlatformError } from '../../errors.js';
import { makeComment, makePayload } from '../../jobs/records.test-helper.js';
import { createKubernetesJobs, loadKubeConfig, type KubernetesJobs } from './client.js';
import { buildJobSpec } from './job-spec.js';

let fake: FakeKubernetes | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function config(kubernetes: Record<string, unknown> = {}): RawConfig {
  return rawConfigSchema.parse({
    agent: { provider: 'anthropic' },
    kubernetes: { image: 'ghcr.io/acme/reviewbot:1.0.0', namespace: 'reviewbot', ...kubernetes },
    store: { url: 'redis://store:6379/0' },
  });
}

/** A fake whose pods run `node -e <script>` instead of `reviewbot run-job`. */
async function start(script = 'process.exit(0)', options: FakeKubernetesOptions = {}) {
  fake = await startFakeKubernetes({
    runCommand: () => ({ command: process.execPath, args: ['-e', script] }),
    killGraceMs: 200,
    ...options,
  });
  const jobs = createKubernetesJobs({ namespace: 'reviewbot', env: { KUBECONFIG: fake.kubeconfigPath } });
  return { fake, jobs };
}

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

const spec = (kubernetes: Record<string, unknown> = {}, pr = 7) =>
  buildJobSpec(
    makePayload('reviewer', 'look', makeComment({ repoFullName: 'Acme/Widgets', prNumber: pr })),
    config(kubernetes),
    {},
  );

describe('loadKubeConfig', () => {
  it.each([
    [
      'a missing file',
      (dir: string) => path.join(dir, 'nope.yaml'),
      /KUBECONFIG: cannot load .*nope\.yaml \(ENOENT\)/,
    ],
    [
      'a malformed file',
      (dir: string) => {
        const file = path.join(dir, 'bad.yaml');
        writeFileSync(file, 'users:\n  - name: u\n    user: {token: tok-secret-123\n  bad: [');
        return file;
      },
      /KUBECONFIG: cannot load .*bad\.yaml \(not a valid kubeconfig file\)/,
    ],
  ])('reports %s as a configuration error without its content', (_what, make, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kubeconfig-'));
    try {
      const error = (() => {
        try {
          loadKubeConfig({ KUBECONFIG: make(dir) });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('tok-secret-123');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createKubernetesJobs', () => {
  it('creates the Job through KUBECONFIG with a generated name, field for field', async () => {
    const { fake: k8s, jobs } = await start();
    const body = spec({ env_from_secrets: ['reviewbot-secrets'], resources: { limits: { memory: '1Gi' } } });
    const created = await jobs.create(body);
    expect(created.name).toMatch(/^reviewbot-acme-widgets-7-[a-z0-9]{5}$/);
    expect(Math.abs(created.createdAt.getTime() - Date.now())).toBeLessThan(5_000);
    expect(k8s.jobs).toHaveLength(1);
    // Every field of the spec reached the API server (nothing dropped by the client's serializer).
    expect(k8s.jobs[0]).toMatchObject(JSON.parse(JSON.stringify(body)) as object);
    expect(k8s.requests[0]).toMatchObject({
      method: 'POST',
      path: '/apis/batch/v1/namespaces/reviewbot/jobs',
      status: 201,
    });
    expect(k8s.rejections).toEqual([]);
  });

  it('finds a Job by job id and follows it to success', async () => {
    const { fake: k8s, jobs } = await start('setTimeout(() => process.exit(0), 300)');
    const body = spec();
    const jobId = body.metadata?.labels?.['reviewbot/job-id'] ?? '';
    await jobs.create(spec({}, 8));
    const created = await jobs.create(body);
    const found = await jobs.findByJobId(jobId);
    expect(found).toMatchObject({ name: created.name, failed: false, succeeded: false });
    expect(await jobs.status(created.name)).toBe('active');
    await k8s.waitForFinish(created.name);
    expect(await jobs.status(created.name)).toBe('succeeded');
    expect(await jobs.findByJobId(jobId)).toMatchObject({
      name: created.name,
      succeeded: true,
      failed: false,
    });
    expect(await jobs.findByJobId('00000000-0000-4000-8000-999999999999')).toBeUndefined();
    expect(k8s.rejections).toEqual([]);
    // Seven calls one after another share keep-alive connections (undici opens a second one for
    // the second request even against a bare node:http server; without reuse there would be 7).
    expect(k8s.requests).toHaveLength(7);
    expect(k8s.connections).toBeLessThanOrEqual(2);
  });

  it('reports a failed Job and a missing one', async () => {
    const { fake: k8s, jobs } = await start('process.exit(3)');
    const body = spec();
    const created = await jobs.create(body);
    await k8s.waitForFinish(created.name);
    expect(await jobs.status(created.name)).toBe('failed');
    const jobId = body.metadata?.labels?.['reviewbot/job-id'] ?? '';
    expect(await jobs.findByJobId(jobId)).toMatchObject({
      name: created.name,
      failed: true,
      succeeded: false,
    });
    expect(await jobs.delete(created.name)).toBe(true);
    expect(await jobs.status(created.name)).toBe('missing');
    expect(await jobs.delete(created.name)).toBe(false);
  });

  it('deletes a running Job together with its pod', async () => {
    const { fake: k8s, jobs } = await start('setInterval(() => {}, 1000)');
    const created = await jobs.create(spec());
    await waitUntil(() => k8s.runs[0]?.startedAt !== undefined);
    expect(await jobs.delete(created.name)).toBe(true);
    await waitUntil(() => k8s.runs[0]?.endedAt !== undefined);
    expect(k8s.runs[0]?.signal).toBe('SIGTERM');
    expect(k8s.requests.at(-1)?.path).toContain('propagationPolicy=Background');
  });

  it('says the Role is missing on 403 (namespace outside the Role)', async () => {
    const { jobs } = await start('process.exit(0)', { namespace: 'elsewhere' });
    const error = await rejection(jobs.create(spec()));
    expect(error.status).toBe(403);
    expect(error.message).toContain("the server's ServiceAccount lacks the Role on batch/jobs");
    expect(error.message).toContain('namespace reviewbot');
    expect(error.message).toContain('cannot create resource "jobs"');
  });

  it.each([
    ['create', (jobs: KubernetesJobs) => jobs.create(spec())],
    ['list', (jobs: KubernetesJobs) => jobs.findByJobId('00000000-0000-4000-8000-000000000001')],
    ['get', (jobs: KubernetesJobs) => jobs.status('reviewbot-x-1-abcde')],
    ['delete', (jobs: KubernetesJobs) => jobs.delete('reviewbot-x-1-abcde')],
  ])('says the Role is missing when it lacks %s', async (verb, call) => {
    const { jobs } = await start('process.exit(0)', {
      verbs: ['create', 'get', 'list', 'watch', 'delete'].filter((v) => v !== verb),
    });
    const error = await rejection(call(jobs));
    expect(error.status).toBe(403);
    expect(error.message).toContain("the server's ServiceAccount lacks the Role on batch/jobs");
  });

  it('reports rejected credentials (401) without echoing the token', async () => {
    const { fake: k8s } = await start();
    const kc = loadKubeConfig({ KUBECONFIG: k8s.kubeconfigPath });
    const user = kc.getCurrentUser();
    if (user) Object.assign(user, { token: 'wrong-token-value' });
    const jobs = createKubernetesJobs({ namespace: 'reviewbot', kubeConfig: kc });
    const error = await rejection(jobs.create(spec()));
    expect(error.status).toBe(401);
    expect(error.message).toContain('rejected the credentials');
    expect(error.message).not.toContain('wrong-token-value');
    expect(error.message).not.toContain(k8s.token);
  });

  it('passes on the API server’s 422 message for an invalid Job', async () => {
    const { jobs } = await start();
    const body = spec({ resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } });
    const error = await rejection(jobs.create(body));
    expect(error.status).toBe(422);
    expect(error.message).toContain('must be less than or equal to memory limit of 1Gi');
  });

  it('retries a generated-name collision (409) and reports a 5xx with its status', async () => {
    const { fake: k8s, jobs } = await start();
    k8s.failNext({ verb: 'create', status: 409, message: 'jobs.batch "x" already exists' });
    await expect(jobs.create(spec())).resolves.toMatchObject({ name: expect.stringMatching(/^reviewbot-/) });
    k8s.failNext({ verb: 'list', status: 503, message: 'etcd is unhappy' });
    const error = await rejection(jobs.findByJobId('00000000-0000-4000-8000-000000000001'));
    expect(error).toMatchObject({ status: 503 });
    expect(error.message).toContain('etcd is unhappy');
  });

  it('reports an unreachable API server without a status', async () => {
    const { fake: k8s, jobs } = await start();
    await k8s.close();
    fake = undefined;
    const error = await rejection(jobs.status('reviewbot-x-1-abcde'));
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/cannot get Job reviewbot-x-1-abcde in namespace reviewbot/);
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
