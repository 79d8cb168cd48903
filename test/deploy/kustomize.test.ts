/**
 * Renders deploy/ with `kubectl kustomize` (kustomize v5, built into kubectl) and validates what an
 * operator would apply. Skipped where kubectl is not installed; manifests.test.ts checks the files
 * themselves everywhere.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { V1Deployment } from '@kubernetes/client-node';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');

const hasKubectl = await run('kubectl', ['version', '--client']).then(
  () => true,
  () => false,
);

interface Rendered {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: {
    template?: {
      spec?: { containers?: { name: string; image?: string; env?: { name: string; value?: string }[] }[] };
    };
  };
}

async function render(dir: string): Promise<Rendered[]> {
  const { stdout } = await run('kubectl', ['kustomize', dir]);
  return parseAllDocuments(stdout).map((d) => d.toJS() as Rendered);
}

function serverImages(objects: Rendered[]): { image?: string; k8sImage?: string } {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'reviewbot-server');
  const server = deployment?.spec?.template?.spec?.containers?.find((c) => c.name === 'server');
  return { image: server?.image, k8sImage: server?.env?.find((e) => e.name === 'K8S_IMAGE')?.value };
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(hasKubectl)('kubectl kustomize deploy/', () => {
  it('renders the quick start: the base plus Redis, all in namespace reviewbot', async () => {
    const objects = await render(path.join(DEPLOY, 'quickstart'));
    const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'Deployment/reviewbot-server',
        'Deployment/reviewbot-redis',
        'Service/reviewbot-redis',
      ]),
    );
    for (const o of objects)
      if (o.kind !== 'Namespace')
        expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe('reviewbot');
    for (const o of objects.filter((x) => x.kind === 'Deployment')) {
      expect(() => new Deployment(o as never).validate()).not.toThrow();
    }
  });

  it('an overlay that sets the image also sets the Job image (K8S_IMAGE)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reviewbot-overlay-'));
    temp.push(dir);
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        // kustomize refuses absolute paths to bases.
        `  - ${path.relative(dir, path.join(DEPLOY, 'base'))}`,
        'images:',
        '  - name: ghcr.io/reviewbot/reviewbot',
        '    newName: ghcr.io/acme/reviewbot-anthropic',
        '    newTag: 0123abcd',
        '',
      ].join('\n'),
    );
    expect(serverImages(await render(dir))).toEqual({
      image: 'ghcr.io/acme/reviewbot-anthropic:0123abcd',
      k8sImage: 'ghcr.io/acme/reviewbot-anthropic:0123abcd',
    });
    expect(serverImages(await render(path.join(DEPLOY, 'base')))).toEqual({
      image: 'ghcr.io/reviewbot/reviewbot:latest',
      k8sImage: 'ghcr.io/reviewbot/reviewbot:latest',
    });
  });

  it('the shared-workspaces component mounts the claim in the server, hardened as the base', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reviewbot-overlay-'));
    temp.push(dir);
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${path.relative(dir, path.join(DEPLOY, 'quickstart'))}`,
        'components:',
        `  - ${path.relative(dir, path.join(DEPLOY, 'shared-workspaces'))}`,
        '',
      ].join('\n'),
    );
    const objects = await render(dir);
    const claim = objects.find((o) => o.kind === 'PersistentVolumeClaim');
    expect(claim?.metadata).toMatchObject({ name: 'reviewbot-workspaces', namespace: 'reviewbot' });
    const deployment = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'reviewbot-server',
    ) as unknown as V1Deployment;
    expect(() => new Deployment(deployment as never).validate()).not.toThrow();
    const pod = deployment.spec?.template.spec;
    expect(pod?.volumes?.find((v) => v.name === 'workspace')).toEqual({
      name: 'workspace',
      persistentVolumeClaim: { claimName: 'reviewbot-workspaces' },
    });
    const server = pod?.containers.find((c) => c.name === 'server');
    expect(server?.volumeMounts).toContainEqual({ name: 'workspace', mountPath: '/workspace' });
    const env = Object.fromEntries((server?.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      WORKSPACE_BASE_DIR: '/workspace',
      WORKSPACE_SHARED_DIR: '/workspace',
      K8S_WORKSPACE_CLAIM: 'reviewbot-workspaces',
    });
    expect(env.K8S_IMAGE).toBe(server?.image);
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(server?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });
});
