/**
 * Gitea/Forgejo settings from the environment (CONTRACT §4): `GITEA_TOKEN` (an access token of the
 * bot's account), `GITEA_URL` (the instance, required: there is no public default; the REST API
 * lives at `<url>/api/v1`) and `GITEA_WEBHOOK_SECRET` (the webhooks' "Secret").
 */
import { ConfigError } from '../../errors.js';

/** Resolved Gitea settings. */
export interface GiteaSettings {
  token: string;
  /** Instance URL without trailing slash, e.g. `https://codeberg.org` or `https://example.com/git`. */
  url: string;
  /** `GITEA_WEBHOOK_SECRET`, when set (may be a comma-separated list during rotation). */
  webhookSecret: string | undefined;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * Normalizes `GITEA_URL`: an http(s) URL without credentials; trailing slashes and a trailing
 * `/api/v1` (the API base instead of the instance, a common mistake) are removed.
 * @throws ConfigError naming `GITEA_URL` when the value is not an http(s) URL.
 */
export function normalizeGiteaUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError([`GITEA_URL: not a URL ("${raw}"); expected e.g. https://gitea.example.com`]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError([`GITEA_URL: must be an http(s) URL, got ${url.protocol}`]);
  }
  if (url.username || url.password) {
    throw new ConfigError(['GITEA_URL: must not contain credentials; set GITEA_TOKEN instead']);
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Reads Gitea settings from `env`; `undefined` when `GITEA_TOKEN` is not set (platform disabled).
 * @throws ConfigError when `GITEA_TOKEN` is set without `GITEA_URL`, or `GITEA_URL` is not http(s).
 */
export function readGiteaSettings(env: NodeJS.ProcessEnv): GiteaSettings | undefined {
  const token = value(env, 'GITEA_TOKEN');
  if (!token) return undefined;
  const url = value(env, 'GITEA_URL');
  if (!url) {
    throw new ConfigError([
      'GITEA_URL: required when GITEA_TOKEN is set (the Gitea or Forgejo instance, e.g. https://gitea.example.com)',
    ]);
  }
  return { token, url: normalizeGiteaUrl(url), webhookSecret: value(env, 'GITEA_WEBHOOK_SECRET') };
}
