/**
 * Connection reuse for `@kubernetes/client-node` 2.x. Its `KubeConfig.applySecurityAuthentication`
 * (run before every API call) builds a new undici `Agent` whenever the cluster has TLS options (a CA
 * — every in-cluster ServiceAccount has one —, a client certificate, or `insecure-skip-tls-verify`),
 * so each call opens a new TCP connection and TLS handshake, and a server creating hundreds of Jobs
 * spends its time connecting. `reuseConnections` makes the instance hand out one Agent per distinct
 * set of options instead; the options are still read for every call (the client reads the CA and
 * certificate files each time), so a rotated certificate gets a new Agent.
 */
import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';

/** What `KubeConfig#createDispatcher` returns: an undici Dispatcher, or undefined (no TLS options). */
interface Dispatcher {
  close(): Promise<void>;
}

type CreateDispatcher = (cluster: unknown, agentOptions: unknown) => Dispatcher | undefined;

/** Agents kept per KubeConfig; the oldest is closed when a new set of options exceeds it. */
export const MAX_CACHED_DISPATCHERS = 4;

/** A stable key for the options: Buffers (CA, certificate, key) by their SHA-256. */
function optionsKey(options: unknown): string {
  return JSON.stringify(options, function (this: unknown, key: string, value: unknown) {
    const raw = (this as Record<string, unknown> | undefined)?.[key];
    if (Buffer.isBuffer(raw)) return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
    return value;
  });
}

/**
 * Makes `kc` reuse one undici Agent (keep-alive connections) per distinct cluster TLS settings
 * across API calls, at most `MAX_CACHED_DISPATCHERS` of them. Patches the instance's
 * `createDispatcher` (a private method of client-node 2.x, covered by a connection-count test);
 * does nothing when the method is absent. Returns `kc`.
 */
export function reuseConnections(kc: KubeConfig): KubeConfig {
  const target = kc as unknown as { createDispatcher?: CreateDispatcher };
  const create = target.createDispatcher;
  if (typeof create !== 'function') return kc;
  const cache = new Map<string, Dispatcher | undefined>();
  target.createDispatcher = (cluster, agentOptions) => {
    const key = optionsKey(kc.createDispatcherOptions(cluster as never, agentOptions as never));
    if (cache.has(key)) return cache.get(key);
    const dispatcher = create.call(kc, cluster, agentOptions);
    cache.set(key, dispatcher);
    if (cache.size > MAX_CACHED_DISPATCHERS) {
      const [oldestKey, oldest] = cache.entries().next().value as [string, Dispatcher | undefined];
      cache.delete(oldestKey);
      void oldest?.close().catch(() => undefined);
    }
    return dispatcher;
  };
  return kc;
}
