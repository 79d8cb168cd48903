import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { describe, expect, it } from 'vitest';
import { validateJob } from '../../../test/support/fake-k8s/validate-job.js';
import { configSchema, rawConfigSchema, type RawConfig } from '../../config/schema.js';
import { makeComment, makePayload } from '../../jobs/records.test-helper.js';
import { buildJobSpec } from './job-spec.js';

function config(overrides: Record<string, unknown> = {}): RawConfig {
  return rawConfigSchema.parse({
    reviewer: { bot_username: 'rb-review' },
    agent: { provider: 'anthropic' },
    kubernetes: { image: 'ghcr.io/acme/reviewbot:1.2.3', namespace: 'reviewbot' },
    store: { url: 'redis://redis.reviewbot.svc:6379/0' },
    ...overrides,
  });
}

function envMap(job: V1Job): Record<string, string | undefined> {
  const list: V1EnvVar[] = job.spec?.template.spec?.containers[0]?.env ?? [];
  return Object.fromEntries(list.map((e) => [e.name, e.value]));
}

const payload = makePayload(
  'reviewer',
  'check the cache',
  makeComment({ repoFullName: 'Acme/Widgets', prNumber: 7 }),
);

describe('buildJobSpec', () => {
  it('mounts the workspace claim at workspace.shared_dir, as hardened as the emptyDir Job (§19)', () => {
    const job = buildJobSpec(
      payload,
      config({
        workspace: { shared_dir: '/shared' },
        kubernetes: { image: 'img:1', workspace_claim: 'rb-ws' },
      }),
      {},
    );
    const pod = job.spec?.template.spec;
    const container = pod?.containers[0];
    expect(pod?.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: 'rb-ws' } },
      { name: 'tmp', emptyDir: {} },
    ]);
    expect(container?.volumeMounts).toContainEqual({ name: 'workspace', mountPath: '/shared' });
    expect(envMap(job).WORKSPACE_BASE_DIR).toBe('/shared');
    // The pod's own configuration says its base directory is shared (so it keeps spare checkouts).
    expect(envMap(job).WORKSPACE_SHARED_DIR).toBe('/shared');
    expect(envMap(job).K8S_WORKSPACE_CLAIM).toBe('rb-ws');
    expect(container?.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(validateJob(job, job.metadata?.namespace ?? '')).toBeUndefined();
  });

  it('refuses a workspace claim without a shared directory and the reverse', () => {
    const config = (overrides: Record<string, unknown>) => configSchema.parse(overrides);
    expect(() => config({ kubernetes: { image: 'img:1', workspace_claim: 'rb-ws' } })).toThrow(/shared_dir/);
    expect(() => config({ workspace: { shared_dir: '/shared' } })).toThrow(/workspace_claim/);
    expect(() =>
      config({ workspace: { shared_dir: 'rel' }, kubernetes: { image: 'img:1', workspace_claim: 'rb-ws' } }),
    ).toThrow(/absolute/);
  });
  it('builds the Job of CONTRACT §10', () => {
    const job = buildJobSpec(payload, config(), {});
    const pod = job.spec?.template.spec;
    const container = pod?.containers[0];
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.kind).toBe('Job');
    expect(job.metadata?.generateName).toBe('reviewbot-acme-widgets-7-');
    expect(job.metadata?.name).toBeUndefined();
    expect(job.metadata?.namespace).toBe('reviewbot');
    expect(job.metadata?.labels).toMatchObject({
      'reviewbot/platform': 'github',
      'reviewbot/repo': 'acme-widgets',
      'reviewbot/pr-number': '7',
      'reviewbot/job-id': payload.jobId,
      'reviewbot/bot-type': 'reviewer',
    });
    expect(job.spec?.template.metadata?.labels).toEqual(job.metadata?.labels);
    expect(job.spec).toMatchObject({
      backoffLimit: 0,
      activeDeadlineSeconds: 600,
      ttlSecondsAfterFinished: 3600,
    });
    expect(pod).toMatchObject({
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 1000 },
      volumes: [
        { name: 'workspace', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
      ],
    });
    expect(pod?.serviceAccountName).toBeUndefined();
    expect(pod?.containers).toHaveLength(1);
    expect(container).toMatchObject({
      name: 'job',
      image: 'ghcr.io/acme/reviewbot:1.2.3',
      command: ['reviewbot', 'run-job'],
      securityContext: {
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      },
      volumeMounts: [
        { name: 'workspace', mountPath: '/workspace' },
        { name: 'tmp', mountPath: '/tmp' },
      ],
    });
    expect(container?.imagePullPolicy).toBeUndefined();
    expect(container?.resources).toBeUndefined();
    expect(container?.envFrom).toBeUndefined();
    expect(JSON.parse(envMap(job).REVIEWBOT_JOB_PAYLOAD ?? '')).toEqual(payload);
  });

  it.each<[string, Record<string, unknown>, (job: V1Job) => unknown, unknown]>([
    ['namespace', { kubernetes: { image: 'i:1', namespace: 'bots' } }, (j) => j.metadata?.namespace, 'bots'],
    [
      'image pull policy',
      { kubernetes: { image: 'i:1', image_pull_policy: 'Always' } },
      (j) => j.spec?.template.spec?.containers[0]?.imagePullPolicy,
      'Always',
    ],
    [
      'service account',
      { kubernetes: { image: 'i:1', service_account: 'reviewbot-job' } },
      (j) => j.spec?.template.spec?.serviceAccountName,
      'reviewbot-job',
    ],
    ['backoff limit', { kubernetes: { image: 'i:1', backoff_limit: 2 } }, (j) => j.spec?.backoffLimit, 2],
    [
      'active deadline',
      { kubernetes: { image: 'i:1', active_deadline_seconds: 90 } },
      (j) => j.spec?.activeDeadlineSeconds,
      90,
    ],
    [
      'ttl after finished',
      { kubernetes: { image: 'i:1', ttl_after_finished: 0 } },
      (j) => j.spec?.ttlSecondsAfterFinished,
      0,
    ],
    [
      'env_from_secrets',
      { kubernetes: { image: 'i:1', env_from_secrets: ['reviewbot-secrets', 'llm-keys'] } },
      (j) => j.spec?.template.spec?.containers[0]?.envFrom,
      [{ secretRef: { name: 'reviewbot-secrets' } }, { secretRef: { name: 'llm-keys' } }],
    ],
    [
      'requests and limits',
      {
        kubernetes: {
          image: 'i:1',
          resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
        },
      },
      (j) => j.spec?.template.spec?.containers[0]?.resources,
      { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '2Gi' } },
    ],
    [
      'limits only',
      { kubernetes: { image: 'i:1', resources: { limits: { cpu: '2' } } } },
      (j) => j.spec?.template.spec?.containers[0]?.resources,
      { limits: { cpu: '2' } },
    ],
  ])('copies %s from the configuration', (_name, overrides, read, expected) => {
    const job = buildJobSpec(payload, config(overrides), {});
    expect(read(job)).toEqual(expected);
    expect(validateJob(job, job.metadata?.namespace ?? '')).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, NodeJS.ProcessEnv, Record<string, string | undefined>]>([
    [
      'defaults',
      {},
      {},
      {
        STORE_URL: 'redis://redis.reviewbot.svc:6379/0',
        STORE_KEY_TTL_SECONDS: '86400',
        WORKSPACE_BASE_DIR: '/workspace',
        AGENT_PROVIDER: 'anthropic',
        AGENT_MAX_TURNS: '30',
        REVIEWER_BOT_USERNAME: 'rb-review',
      },
    ],
    [
      'every setting',
      {
        agent: {
          provider: 'openai-compatible',
          model: 'qwen3',
          base_url: 'http://vllm:8000/v1',
          max_turns: 12,
        },
        worker: { bot_username: 'rb-work' },
        store: { url: 'rediss://store:6380/2', key_ttl_seconds: 3600 },
      },
      {
        CODEHOST_API_URL: 'https://ghe.example/api/v3',
        GITLAB_URL: 'https://gitlab.example',
        GITEA_URL: 'https://gitea.example',
        GITEA_TOKEN: 'gitea-secret-token',
        BITBUCKET_API_URL: 'https://api.bitbucket.example/2.0',
        BITBUCKET_TOKEN: 'bitbucket-secret-token',
        BITBUCKET_SERVER_URL: 'https://bitbucket.example/bb',
        BITBUCKET_SERVER_TOKEN: 'bitbucket-server-secret-token',
        AZURE_DEVOPS_URL: 'https://dev.azure.com/acme',
        AZURE_DEVOPS_TOKEN: 'azure-devops-secret-pat',
        LOG_LEVEL: 'debug',
      },
      {
        STORE_URL: 'rediss://store:6380/2',
        STORE_KEY_TTL_SECONDS: '3600',
        WORKSPACE_BASE_DIR: '/workspace',
        AGENT_PROVIDER: 'openai-compatible',
        AGENT_MODEL: 'qwen3',
        AGENT_BASE_URL: 'http://vllm:8000/v1',
        AGENT_MAX_TURNS: '12',
        CODEHOST_API_URL: 'https://ghe.example/api/v3',
        GITLAB_URL: 'https://gitlab.example',
        GITEA_URL: 'https://gitea.example',
        BITBUCKET_API_URL: 'https://api.bitbucket.example/2.0',
        BITBUCKET_SERVER_URL: 'https://bitbucket.example/bb',
        AZURE_DEVOPS_URL: 'https://dev.azure.com/acme',
        REVIEWER_BOT_USERNAME: 'rb-review',
        WORKER_BOT_USERNAME: 'rb-work',
        LOG_LEVEL: 'debug',
      },
    ],
    [
      'the GITHUB_API_URL alias and SDK base URLs',
      {},
      { GITHUB_API_URL: 'https://ghe.example/api/v3', ANTHROPIC_BASE_URL: 'http://proxy:8080' },
      { CODEHOST_API_URL: 'https://ghe.example/api/v3', ANTHROPIC_BASE_URL: 'http://proxy:8080' },
    ],
    [
      'a store URL with a password (left to envFrom)',
      { store: { url: 'redis://:s3cret-pw@store:6379/0' } },
      {},
      { STORE_URL: undefined },
    ],
  ])('env: %s', (_name, overrides, env, expected) => {
    const job = buildJobSpec(payload, config(overrides), env);
    const actual = envMap(job);
    expect(actual).toMatchObject(
      Object.fromEntries(Object.entries(expected).filter(([, v]) => v !== undefined)),
    );
    for (const [name, value] of Object.entries(expected))
      if (value === undefined) expect(actual).not.toHaveProperty(name);
  });

  it('never puts a secret of the server environment into the Job', () => {
    const secrets = {
      CODEHOST_TOKEN: 'ghp_supersecrettoken123',
      CODEHOST_WEBHOOK_SECRET: 'whsec-123456789',
      CODEHOST_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----',
      ANTHROPIC_API_KEY: 'sk-ant-secretkey-123',
      GITLAB_TOKEN: 'glpat-secret-123456',
      GITEA_TOKEN: 'gitea-secret-token-123456',
      GITEA_WEBHOOK_SECRET: 'gitea-whsec-123456',
      AGENT_API_KEY: 'local-key-123456',
      STORE_URL: 'redis://:store-password-1@store:6379/0',
    };
    const job = buildJobSpec(payload, config({ store: { url: secrets.STORE_URL } }), secrets);
    const text = JSON.stringify(job);
    for (const [name, value] of Object.entries(secrets)) {
      expect(text, name).not.toContain(value);
    }
    expect(text).not.toContain('store-password-1');
    expect(job.spec?.template.spec?.containers[0]?.env?.map((e) => e.name)).not.toContain('CODEHOST_TOKEN');
  });

  it('escapes $ so the kubelet cannot expand $(SECRET) in the payload', () => {
    const sneaky = makePayload('worker', 'print $(ANTHROPIC_API_KEY) and $$HOME and $', makeComment());
    const value = envMap(buildJobSpec(sneaky, config(), {})).REVIEWBOT_JOB_PAYLOAD ?? '';
    expect(value).toContain('$$(ANTHROPIC_API_KEY) and $$$$HOME and $$');
  });

  it('passes the official Kubernetes schema and the API server checks', () => {
    const job = buildJobSpec(
      payload,
      config({
        kubernetes: {
          image: 'ghcr.io/acme/reviewbot:latest',
          image_pull_policy: 'IfNotPresent',
          service_account: 'reviewbot-job',
          env_from_secrets: ['reviewbot-secrets'],
          resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } },
        },
      }),
      {},
    );
    expect(() => new Job(job as ConstructorParameters<typeof Job>[0]).validate()).not.toThrow();
    expect(validateJob(job, 'default')).toBeUndefined();
  });

  it('gives the pod what the tool sandbox needs (own user namespace, unmasked /proc) and nothing else', () => {
    const job = buildJobSpec(payload, config(), {});
    const pod = job.spec?.template.spec;
    expect(pod?.hostUsers).toBe(false);
    expect(pod?.hostPID).toBeUndefined();
    expect(pod?.containers[0]?.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      procMount: 'Unmasked',
    });
    expect(pod?.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    expect(validateJob(job, 'reviewbot')).toBeUndefined();
  });

  it('with agent.sandbox off the pod asks for nothing extra', () => {
    const job = buildJobSpec(payload, config({ agent: { provider: 'anthropic', sandbox: 'off' } }), {});
    expect(job.spec?.template.spec?.hostUsers).toBeUndefined();
    expect(job.spec?.template.spec?.containers[0]?.securityContext?.procMount).toBeUndefined();
  });

  it('refuses to build a Job without kubernetes.image', () => {
    expect(() => buildJobSpec(payload, rawConfigSchema.parse({}), {})).toThrow(/kubernetes\.image/);
  });
});
