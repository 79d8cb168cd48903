/**
 * Platform registry (seed "Platform registry"): each platform module registers a factory at import
 * time; `buildPlatforms()` returns only the platforms whose credentials are configured.
 */
import type { Logger } from '../logger.js';
import type { Platform, PlatformName } from './types.js';

/** What a factory receives: the environment (for credentials) and a logger. */
export interface PlatformFactoryContext {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Custom fetch (tests); defaults to the global fetch. */
  fetch?: typeof fetch;
}

/**
 * A platform factory: resolves with the platform, or `undefined` when its credentials are not set.
 * Asynchronous so a platform module loads its API client only when the platform is configured.
 */
export type PlatformFactory = (context: PlatformFactoryContext) => Promise<Platform | undefined>;

const factories = new Map<PlatformName, PlatformFactory>();

/** Registers `factory` under `name` (called by each platform module when imported). */
export function registerPlatform(name: PlatformName, factory: PlatformFactory): void {
  factories.set(name, factory);
}

/** Names of every registered platform, in registration order. */
export function registeredPlatforms(): PlatformName[] {
  return [...factories.keys()];
}

/**
 * Builds every registered platform whose credentials are set; keyed by name.
 * @throws ConfigError from a factory whose credentials are set but invalid.
 */
export async function buildPlatforms(context: PlatformFactoryContext): Promise<Map<PlatformName, Platform>> {
  const built = new Map<PlatformName, Platform>();
  for (const [name, factory] of factories) {
    const platform = await factory(context);
    if (platform) built.set(name, platform);
  }
  return built;
}
