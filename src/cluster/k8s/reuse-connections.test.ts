import { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { MAX_CACHED_DISPATCHERS, reuseConnections } from './reuse-connections.js';

/** A kubeconfig for an HTTPS API server with CA `ca` (base64 of any bytes: the Agent is lazy). */
function kubeConfig(ca: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://10.0.0.1:443', caData: Buffer.from(ca).toString('base64') }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function dispatcherOf(kc: KubeConfig): Promise<unknown> {
  const context = new RequestContext('https://10.0.0.1/apis/batch/v1/namespaces/a/jobs', 'GET' as never);
  await kc.applySecurityAuthentication(context);
  expect(context.getHeaders().Authorization).toBe('Bearer secret-token');
  return context.getDispatcher();
}

describe('reuseConnections', () => {
  it('gives every call the same Agent, where the client alone builds one per call', async () => {
    const plain = kubeConfig('ca-1');
    const first = await dispatcherOf(plain);
    expect(first).toBeDefined();
    expect(await dispatcherOf(plain)).not.toBe(first);

    const pooled = reuseConnections(kubeConfig('ca-1'));
    const shared = await dispatcherOf(pooled);
    expect(shared).toBeDefined();
    expect(await dispatcherOf(pooled)).toBe(shared);
    expect(await dispatcherOf(pooled)).toBe(shared);
  });

  it('builds a new Agent when the CA changes and closes the oldest beyond the bound', async () => {
    const kc = reuseConnections(kubeConfig('ca-0'));
    const agents = [await dispatcherOf(kc)];
    for (let i = 1; i <= MAX_CACHED_DISPATCHERS; i += 1) {
      const cluster = kc.getCurrentCluster();
      Object.assign(cluster ?? {}, { caData: Buffer.from(`ca-${i}`).toString('base64') });
      agents.push(await dispatcherOf(kc));
    }
    expect(new Set(agents).size).toBe(MAX_CACHED_DISPATCHERS + 1);
    expect((agents[0] as { closed: boolean }).closed).toBe(true);
    expect((agents[1] as { closed: boolean }).closed).toBe(false);
    // The newest set of options still maps to its Agent.
    expect(await dispatcherOf(kc)).toBe(agents.at(-1));
  });
});
