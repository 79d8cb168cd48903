/**
 * Bitbucket Cloud settings from the environment (CONTRACT §4): `BITBUCKET_TOKEN` (a repository,
 * project or workspace access token, sent as Bearer), `BITBUCKET_API_URL` (default
 * `https://api.bitbucket.org/2.0`), `BITBUCKET_WEBHOOK_SECRET`.
 */
import { ConfigError } from '../../errors.js';

/** The public API of Bitbucket Cloud. */
export const DEFAULT_BITBUCKET_API_URL = 'https://api.bitbucket.org/2.0';

/** Resolved Bitbucket Cloud settings. */
export interface BitbucketSettings {
  token: string;
  /** API base without trailing slash, e.g. `https://api.bitbucket.org/2.0`. */
  apiUrl: string;
  /** `BITBUCKET_WEBHOOK_SECRET`, when set (a comma-separated list during rotation). */
  webhookSecret: string | undefined;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * `BITBUCKET_API_URL` checked: an http(s) URL without credentials, trailing slashes dropped.
 * @throws ConfigError naming the variable.
 */
export function normalizeBitbucketApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError([
      `BITBUCKET_API_URL: not a URL ("${raw}"); expected e.g. ${DEFAULT_BITBUCKET_API_URL}`,
    ]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError([`BITBUCKET_API_URL: must be an http(s) URL, got ${url.protocol}`]);
  }
  if (url.username || url.password) {
    throw new ConfigError(['BITBUCKET_API_URL: must not contain credentials; set BITBUCKET_TOKEN instead']);
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The Bitbucket Cloud settings, or undefined when `BITBUCKET_TOKEN` is not set (platform disabled).
 * @throws ConfigError when `BITBUCKET_API_URL` is malformed.
 */
export function readBitbucketSettings(env: NodeJS.ProcessEnv): BitbucketSettings | undefined {
  const token = value(env, 'BITBUCKET_TOKEN');
  if (!token) return undefined;
  return {
    token,
    apiUrl: normalizeBitbucketApiUrl(value(env, 'BITBUCKET_API_URL') ?? DEFAULT_BITBUCKET_API_URL),
    webhookSecret: value(env, 'BITBUCKET_WEBHOOK_SECRET'),
  };
}
