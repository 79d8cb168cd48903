/**
 * Bitbucket Data Center settings from the environment (CONTRACT §4): `BITBUCKET_SERVER_TOKEN` (an
 * HTTP access token, sent as Bearer), `BITBUCKET_SERVER_URL` (required: the instance's base URL,
 * e.g. `https://bitbucket.example.com` or `https://host/bitbucket`; REST lives at `/rest/api/1.0`
 * under it), `BITBUCKET_SERVER_WEBHOOK_SECRET`.
 */
import { ConfigError } from '../../errors.js';

/** Resolved Bitbucket Data Center settings. */
export interface BitbucketServerSettings {
  token: string;
  /** Instance base URL without trailing slash (the web UI's base; REST under `<url>/rest`). */
  url: string;
  /** `BITBUCKET_SERVER_WEBHOOK_SECRET`, when set (a comma-separated list during rotation). */
  webhookSecret: string | undefined;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * `BITBUCKET_SERVER_URL` checked: an http(s) URL without credentials, query or fragment; trailing
 * slashes dropped.
 * @throws ConfigError naming the variable.
 */
export function normalizeBitbucketServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError([
      `BITBUCKET_SERVER_URL: not a URL ("${raw}"); expected e.g. https://bitbucket.example.com`,
    ]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError([`BITBUCKET_SERVER_URL: must be an http(s) URL, got ${url.protocol}`]);
  }
  if (url.username || url.password) {
    throw new ConfigError([
      'BITBUCKET_SERVER_URL: must not contain credentials; set BITBUCKET_SERVER_TOKEN instead',
    ]);
  }
  if (url.search || url.hash) {
    throw new ConfigError(['BITBUCKET_SERVER_URL: must not have a query or fragment']);
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The Data Center settings, or undefined when `BITBUCKET_SERVER_TOKEN` is not set (platform
 * disabled).
 * @throws ConfigError when the token is set without `BITBUCKET_SERVER_URL`, or the URL is malformed.
 */
export function readBitbucketServerSettings(env: NodeJS.ProcessEnv): BitbucketServerSettings | undefined {
  const token = value(env, 'BITBUCKET_SERVER_TOKEN');
  if (!token) return undefined;
  const url = value(env, 'BITBUCKET_SERVER_URL');
  if (!url) {
    throw new ConfigError([
      'BITBUCKET_SERVER_URL: required when BITBUCKET_SERVER_TOKEN is set (the instance URL, e.g. https://bitbucket.example.com)',
    ]);
  }
  return {
    token,
    url: normalizeBitbucketServerUrl(url),
    webhookSecret: value(env, 'BITBUCKET_SERVER_WEBHOOK_SECRET'),
  };
}
