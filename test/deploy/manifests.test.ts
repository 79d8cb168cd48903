/**
 * The manifests under deploy/: every object validates against the official Kubernetes schemas
 * (kubernetes-models), the kustomizations reference what exists, and the objects say what the seed's
 * "Deployment objects" and CONTRACT §10 require (names, RBAC verbs, probes, ports, config mount).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
  V1ConfigMap,
  V1Deployment,
  V1PersistentVolumeClaim,
  V1PodSpec,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { PROVIDERS } from '../../src/agent/providers.js';
import { buildJobSpec } from '../../src/cluster/k8s/job-spec.js';
import { loadConfig } from '../../src/config/load-config.js';
import { makePayload } from '../../src/jobs/records.test-helper.js';

const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

interface Loaded {
  file: string;
  doc: K8sObject;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry) ? [full] : [];
  });
}

function load(): Loaded[] {
  const out: Loaded[] = [];
  for (const file of yamlFiles(DEPLOY)) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      expect(document.errors, file).toEqual([]);
      out.push({ file: path.relative(DEPLOY, file), doc: document.toJS() as K8sObject });
    }
  }
  return out;
}

const all = load();
const kustomizeKinds = new Set(['Kustomization', 'Component']);
const objects = all.filter((l) => l.doc.kind !== undefined && !kustomizeKinds.has(l.doc.kind));

function find<T>(kind: string, name: string): T {
  const match = objects.filter((l) => l.doc.kind === kind && l.doc.metadata.name === name);
  expect(match, `${kind}/${name}`).toHaveLength(1);
  return match[0]?.doc as T;
}

type Validator = new (data: never) => { validate(): void };
const MODELS: Record<string, Validator> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
};

/** Problems of `pod` under the restricted Pod Security Standard (kubernetes.io/docs/concepts/security/pod-security-standards). */
function restrictedProblems(pod: V1PodSpec): string[] {
  const problems: string[] = [];
  const podSc = pod.securityContext ?? {};
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) problems.push('host namespaces');
  for (const volume of pod.volumes ?? [])
    if (volume.hostPath) problems.push(`hostPath volume ${volume.name}`);
  for (const c of pod.containers) {
    const sc = c.securityContext ?? {};
    if (!(sc.runAsNonRoot ?? podSc.runAsNonRoot)) problems.push(`${c.name}: runAsNonRoot`);
    if ((sc.runAsUser ?? podSc.runAsUser) === 0) problems.push(`${c.name}: runAsUser 0`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${c.name}: allowPrivilegeEscalation`);
    if (sc.privileged) problems.push(`${c.name}: privileged`);
    if (!sc.capabilities?.drop?.includes('ALL')) problems.push(`${c.name}: capabilities.drop ALL`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`${c.name}: seccompProfile`);
  }
  return problems;
}

describe('deploy/ manifests', () => {
  it.each(objects.map((l) => [`${l.file}: ${l.doc.kind}/${l.doc.metadata?.name}`, l.doc]))(
    '%s validates against the Kubernetes schema',
    (_name, doc) => {
      const model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(model, `no schema for ${doc.apiVersion}/${doc.kind}`).toBeDefined();
      expect(() => new (model as Validator)(doc as never).validate()).not.toThrow();
      expect(doc.metadata.namespace ?? 'reviewbot').toBe('reviewbot');
    },
  );

  it('has the objects of the seed, under their names', () => {
    const names = objects.map((l) => `${l.doc.kind}/${l.doc.metadata.name}`).sort();
    expect(names).toEqual(
      [
        'ConfigMap/reviewbot-config',
        'Deployment/reviewbot-redis',
        'Deployment/reviewbot-server',
        'Namespace/reviewbot',
        'PersistentVolumeClaim/reviewbot-workspaces',
        'Role/reviewbot-server',
        'RoleBinding/reviewbot-server',
        'Secret/reviewbot-secrets',
        'Service/reviewbot-redis',
        'Service/reviewbot-server',
        'ServiceAccount/reviewbot-server',
      ].sort(),
    );
  });

  it('kustomizations reference files and directories that exist, and every manifest is referenced', () => {
    const referenced = new Set<string>();
    for (const { file, doc } of all.filter((l) => kustomizeKinds.has(l.doc.kind))) {
      const dir = path.join(DEPLOY, path.dirname(file));
      const entries = [...((doc.resources as string[]) ?? []), ...((doc.components as string[]) ?? [])];
      expect(entries.length, file).toBeGreaterThan(0);
      for (const entry of [...entries, ...((doc.configurations as string[]) ?? [])]) {
        const target = path.join(dir, entry);
        const isDir = statSync(target, { throwIfNoEntry: false })?.isDirectory();
        if (isDir) expect(readdirSync(target), `${file} → ${entry}`).toContain('kustomization.yaml');
        else expect(statSync(target, { throwIfNoEntry: false })?.isFile(), `${file} → ${entry}`).toBe(true);
        referenced.add(path.relative(DEPLOY, target));
      }
    }
    for (const file of new Set(objects.map((l) => l.file))) expect(referenced, file).toContain(file);
    expect(referenced).toContain('redis');
  });

  it('grants the server exactly create, get, list, watch, delete on batch/jobs', () => {
    const role = find<V1Role>('Role', 'reviewbot-server');
    expect(role.rules).toEqual([
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'get', 'list', 'watch', 'delete'] },
    ]);
    const binding = find<V1RoleBinding>('RoleBinding', 'reviewbot-server');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'reviewbot-server',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'reviewbot-server', namespace: 'reviewbot' },
    ]);
  });

  it('runs the server as the Deployment the seed describes', () => {
    const deployment = find<V1Deployment>('Deployment', 'reviewbot-server');
    const pod = deployment.spec?.template.spec as V1PodSpec;
    expect(pod.serviceAccountName).toBe('reviewbot-server');
    expect(pod.containers.map((c) => c.name)).toEqual(['server']);
    const server = pod.containers[0];
    expect(server?.command).toEqual(['reviewbot', 'serve']);
    expect(server?.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(server?.livenessProbe).toMatchObject({
      httpGet: { path: '/health', port: 'http' },
      periodSeconds: 30,
    });
    expect(server?.readinessProbe).toMatchObject({
      httpGet: { path: '/health', port: 'http' },
      periodSeconds: 10,
    });
    expect(server?.envFrom).toEqual([{ secretRef: { name: 'reviewbot-secrets' } }]);
    const env = Object.fromEntries((server?.env ?? []).map((e) => [e.name, e]));
    expect(env.K8S_IMAGE?.value).toBe(server?.image);
    expect(env.K8S_NAMESPACE?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.namespace' } });
    expect(server?.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(restrictedProblems(pod)).toEqual([]);
    const mounts = Object.fromEntries((server?.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
    const volumes = Object.fromEntries((pod.volumes ?? []).map((v) => [v.name, v]));
    expect(volumes[mounts['/tmp'] ?? '']?.emptyDir).toEqual({});
    expect(volumes[mounts['/workspace'] ?? '']?.emptyDir).toEqual({});
    // The ConfigMap's config.yaml key lands at /etc/reviewbot/config.yaml.
    expect(volumes[mounts['/etc/reviewbot'] ?? '']?.configMap).toEqual({ name: 'reviewbot-config' });
    expect(Object.keys(find<V1ConfigMap>('ConfigMap', 'reviewbot-config').data ?? {})).toEqual([
      'config.yaml',
    ]);
  });

  it('exposes the server on port 80 → 8080, selecting only server pods', () => {
    const service = find<V1Service>('Service', 'reviewbot-server');
    expect(service.spec?.ports).toEqual([{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }]);
    const selector = service.spec?.selector ?? {};
    const serverPod = find<V1Deployment>('Deployment', 'reviewbot-server').spec?.template;
    expect(serverPod?.spec?.containers[0]?.ports?.[0]?.containerPort).toBe(
      service.spec?.ports?.[0]?.targetPort,
    );
    const serverLabels = serverPod?.metadata?.labels ?? {};
    const jobLabels =
      buildJobSpec(makePayload('reviewer', ''), clusterConfig(), {}).spec?.template.metadata?.labels ?? {};
    const matches = (labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    expect(matches(serverLabels)).toBe(true);
    expect(matches(jobLabels)).toBe(false);
  });

  it('templates every secret variable of CONTRACT §3/§4 in reviewbot-secrets, and nothing else', () => {
    const secret = find<V1Secret>('Secret', 'reviewbot-secrets');
    expect(secret.type).toBe('Opaque');
    const keys = Object.keys(secret.stringData ?? {});
    const providerKeys = Object.values(PROVIDERS).map((p) => p.keyVars[0] as string);
    const platformKeys = [
      'CODEHOST_TOKEN',
      'CODEHOST_APP_ID',
      'CODEHOST_INSTALLATION_ID',
      'CODEHOST_APP_PRIVATE_KEY',
      'CODEHOST_WEBHOOK_SECRET',
      'GITLAB_TOKEN',
      'GITLAB_WEBHOOK_SECRET',
      'BITBUCKET_TOKEN',
      'BITBUCKET_WEBHOOK_SECRET',
      'BITBUCKET_SERVER_TOKEN',
      'BITBUCKET_SERVER_WEBHOOK_SECRET',
      'GITEA_TOKEN',
      'GITEA_WEBHOOK_SECRET',
      'AZURE_DEVOPS_TOKEN',
      'AZURE_DEVOPS_WEBHOOK_USER',
      'AZURE_DEVOPS_WEBHOOK_SECRET',
    ];
    expect(keys.sort()).toEqual([...new Set([...platformKeys, ...providerKeys])].sort());
    // STORE_URL stays out unless it carries a password (an empty value would fail validation).
    expect(readFileSync(path.join(DEPLOY, 'base/secret.yaml'), 'utf8')).toMatch(/# STORE_URL: /);
  });
});

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The server Deployment patch of the shared-workspaces component (its one inline patch). */
function sharedWorkspacesPatch(): V1Deployment {
  const component = all.find((l) => l.file === path.join('shared-workspaces', 'kustomization.yaml'));
  const patches = (component?.doc.patches ?? []) as {
    target: { kind: string; name: string };
    patch: string;
  }[];
  expect(patches.map((p) => p.target)).toEqual([{ kind: 'Deployment', name: 'reviewbot-server' }]);
  return parseAllDocuments(patches[0]?.patch ?? '')[0]?.toJS() as V1Deployment;
}

/**
 * The effective configuration of the server pod: config.yaml plus the Deployment's env (and, with
 * `shared`, the env the shared-workspaces component adds).
 */
function clusterConfig(shared = false) {
  const dir = mkdtempSync(path.join(tmpdir(), 'reviewbot-deploy-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, find<V1ConfigMap>('ConfigMap', 'reviewbot-config').data?.['config.yaml'] ?? '');
  const server = find<V1Deployment>('Deployment', 'reviewbot-server').spec?.template.spec?.containers[0];
  const env: NodeJS.ProcessEnv = { K8S_NAMESPACE: 'reviewbot' };
  const extra = shared ? (sharedWorkspacesPatch().spec?.template.spec?.containers[0]?.env ?? []) : [];
  for (const e of [...(server?.env ?? []), ...extra]) if (e.value !== undefined) env[e.name] = e.value;
  return loadConfig({ configFile: file, env }).config;
}

describe('deploy/ configuration', () => {
  it('config.yaml is a valid cluster-mode configuration', () => {
    const config = clusterConfig();
    expect(config.kubernetes.image).toBe('ghcr.io/reviewbot/reviewbot:latest');
    expect(config.kubernetes.namespace).toBe('reviewbot');
    expect(config.kubernetes.env_from_secrets).toEqual(['reviewbot-secrets']);
    expect(config.agent.provider).toBeDefined();
    const server = find<V1Deployment>('Deployment', 'reviewbot-server').spec?.template.spec?.containers[0];
    expect(config.webhook.port).toBe(server?.ports?.[0]?.containerPort);
    const store = new URL(config.store.url ?? '');
    const redis = find<V1Service>('Service', store.hostname);
    expect(redis.spec?.ports?.[0]?.port).toBe(Number(store.port));
  });

  it('the Jobs the server builds from it validate and meet the restricted Pod Security Standard', () => {
    const job = buildJobSpec(makePayload('worker', 'fix it'), clusterConfig(), {});
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(restrictedProblems(job.spec?.template.spec as V1PodSpec)).toEqual([]);
    expect(job.spec?.template.spec?.containers[0]?.envFrom).toEqual([
      { secretRef: { name: 'reviewbot-secrets' } },
    ]);
  });

  it('shared workspaces: the server and every Job mount the one ReadWriteMany claim at the base dir', () => {
    const claim = find<V1PersistentVolumeClaim>('PersistentVolumeClaim', 'reviewbot-workspaces');
    expect(claim.spec?.accessModes).toEqual(['ReadWriteMany']);
    const config = clusterConfig(true);
    expect(config.kubernetes.workspace_claim).toBe('reviewbot-workspaces');
    expect(config.workspace.shared_dir).toBe('/workspace');
    expect(config.workspace.base_dir).toBe('/workspace');
    // The server's /workspace mount (base deployment.yaml) now holds the claim.
    const patch = sharedWorkspacesPatch().spec?.template.spec;
    expect(patch?.volumes).toEqual([
      { name: 'workspace', emptyDir: null, persistentVolumeClaim: { claimName: 'reviewbot-workspaces' } },
    ]);
    const server = find<V1Deployment>('Deployment', 'reviewbot-server').spec?.template.spec;
    expect(server?.containers[0]?.volumeMounts).toContainEqual({
      name: 'workspace',
      mountPath: '/workspace',
    });
    const job = buildJobSpec(makePayload('worker', 'fix it'), config, {});
    expect(() => new Job(job as never).validate()).not.toThrow();
    const pod = job.spec?.template.spec as V1PodSpec;
    expect(restrictedProblems(pod)).toEqual([]);
    expect(pod.volumes).toContainEqual({
      name: 'workspace',
      persistentVolumeClaim: { claimName: 'reviewbot-workspaces' },
    });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({ name: 'workspace', mountPath: '/workspace' });
    expect(pod.containers[0]?.securityContext?.readOnlyRootFilesystem).toBe(true);
  });

  it('the quick-start Redis meets the restricted Pod Security Standard', () => {
    const pod = find<V1Deployment>('Deployment', 'reviewbot-redis').spec?.template.spec as V1PodSpec;
    expect(restrictedProblems(pod)).toEqual([]);
  });
});
