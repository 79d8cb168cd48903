/**
 * `buildPlatform()` for the CLI (seed "CLI module"): builds the configured platforms from
 * environment tokens (no webhook secret needed) and picks one per CONTRACT §2.
 */
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { buildPlatforms } from '../platforms/index.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { PLATFORM_VARIABLES } from './platform-variables.js';

/** Options of `buildPlatform`. */
export interface BuildPlatformOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** `--platform`. */
  requested?: PlatformName;
  /** Platform implied by a URL reference. */
  fromRef?: PlatformName;
}

/**
 * Returns the platform to use: `--platform`, else the URL's platform, else `github` when configured,
 * else the only configured platform.
 * @throws UsageError when the chosen platform has no credentials or none/several are configured.
 */
export async function buildPlatform(options: BuildPlatformOptions): Promise<Platform> {
  const platforms = await buildPlatforms({ env: options.env, logger: options.logger });
  const wanted = options.requested ?? options.fromRef;
  const hint = (name: PlatformName): string => `set ${PLATFORM_VARIABLES[name].credentials}`;
  if (wanted) {
    const platform = platforms.get(wanted);
    if (!platform) throw new UsageError(`platform ${wanted} is not configured: ${hint(wanted)}`);
    return platform;
  }
  const github = platforms.get('github');
  if (github) return github;
  const [only, ...others] = [...platforms.values()];
  if (!only)
    throw new UsageError(
      `no platform is configured: ${Object.keys(PLATFORM_VARIABLES)
        .map((name) => hint(name as PlatformName))
        .join(', or ')}`,
    );
  if (others.length > 0) throw new UsageError('several platforms are configured: choose one with --platform');
  return only;
}
