/**
 * GitLab settings from the environment (CONTRACT §4): `GITLAB_TOKEN` (a personal, group or project
 * access token), `GITLAB_URL` (the instance, default `https://gitlab.com`; the REST API lives at
 * `<url>/api/v4`) and `GITLAB_WEBHOOK_SECRET` (the webhook's "Secret token").
 */
import { ConfigError } from '../../errors.js';

/** Resolved GitLab settings. */
export interface GitLabSettings {
  token: string;
  /** Instance URL without trailing slash, e.g. `https://gitlab.com` or `https://git.example.com/gitlab`. */
  url: string;
  /** `GITLAB_WEBHOOK_SECRET`, when set (may be a comma-separated list during rotation). */
  webhookSecret: string | undefined;
}

/** The default instance (CONTRACT §4). */
export const DEFAULT_GITLAB_URL = 'https://gitlab.com';

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * Normalizes `GITLAB_URL`: an http(s) URL without query or fragment; trailing slashes and a trailing
 * `/api/v4` (a common mistake: the API base instead of the instance) are removed.
 * @throws ConfigError naming `GITLAB_URL` when the value is not an http(s) URL.
 */
export function normalizeGitLabUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError([`GITLAB_URL: not a URL ("${raw}"); expected e.g. https://gitlab.example.com`]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError([`GITLAB_URL: must be an http(s) URL, got ${url.protocol}`]);
  }
  if (url.username || url.password) {
    throw new ConfigError(['GITLAB_URL: must not contain credentials; set GITLAB_TOKEN instead']);
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v4$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Reads GitLab settings from `env`; `undefined` when `GITLAB_TOKEN` is not set (platform disabled).
 * @throws ConfigError when `GITLAB_URL` is set but not an http(s) URL.
 */
export function readGitLabSettings(env: NodeJS.ProcessEnv): GitLabSettings | undefined {
  const token = value(env, 'GITLAB_TOKEN');
  if (!token) return undefined;
  return {
    token,
    url: normalizeGitLabUrl(value(env, 'GITLAB_URL') ?? DEFAULT_GITLAB_URL),
    webhookSecret: value(env, 'GITLAB_WEBHOOK_SECRET'),
  };
}
