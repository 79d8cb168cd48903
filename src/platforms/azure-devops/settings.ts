/**
 * Azure DevOps settings from the environment (CONTRACT §4): `AZURE_DEVOPS_TOKEN` (a personal access
 * token, sent as HTTP Basic with an empty user; a pipeline's job access token, a JWT, as Bearer:
 * `auth.ts`), `AZURE_DEVOPS_URL` (required: the organization,
 * `https://dev.azure.com/org`, or an Azure DevOps Server collection URL), and the service hooks'
 * Basic credentials `AZURE_DEVOPS_WEBHOOK_USER` / `AZURE_DEVOPS_WEBHOOK_SECRET`.
 */
import { ConfigError } from '../../errors.js';

/** Resolved Azure DevOps settings. */
export interface AzureDevOpsSettings {
  token: string;
  /** Organization or collection URL without trailing slash, e.g. `https://dev.azure.com/acme`. */
  url: string;
  /** `AZURE_DEVOPS_WEBHOOK_USER`, when set. */
  webhookUser: string | undefined;
  /** `AZURE_DEVOPS_WEBHOOK_SECRET`, when set. */
  webhookSecret: string | undefined;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text ? text : undefined;
}

/**
 * `AZURE_DEVOPS_URL` checked: an http(s) URL without credentials, query or fragment; trailing
 * slashes dropped.
 * @throws ConfigError naming the variable.
 */
export function normalizeAzureDevOpsUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError([
      `AZURE_DEVOPS_URL: not a URL ("${raw}"); expected e.g. https://dev.azure.com/your-organization`,
    ]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError([`AZURE_DEVOPS_URL: must be an http(s) URL, got ${url.protocol}`]);
  }
  if (url.username || url.password) {
    throw new ConfigError(['AZURE_DEVOPS_URL: must not contain credentials; set AZURE_DEVOPS_TOKEN instead']);
  }
  if (url.search || url.hash) throw new ConfigError(['AZURE_DEVOPS_URL: must not have a query or fragment']);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The Azure DevOps settings, or undefined when `AZURE_DEVOPS_TOKEN` is not set (platform disabled).
 * @throws ConfigError when `AZURE_DEVOPS_URL` is missing or malformed, or only one of the webhook
 * user and secret is set.
 */
export function readAzureDevOpsSettings(env: NodeJS.ProcessEnv): AzureDevOpsSettings | undefined {
  const token = value(env, 'AZURE_DEVOPS_TOKEN');
  if (!token) return undefined;
  const url = value(env, 'AZURE_DEVOPS_URL');
  if (!url) {
    throw new ConfigError([
      'AZURE_DEVOPS_URL: required with AZURE_DEVOPS_TOKEN (the organization, https://dev.azure.com/org, or the Server collection URL)',
    ]);
  }
  const webhookUser = value(env, 'AZURE_DEVOPS_WEBHOOK_USER');
  const webhookSecret = value(env, 'AZURE_DEVOPS_WEBHOOK_SECRET');
  if ((webhookUser === undefined) !== (webhookSecret === undefined)) {
    throw new ConfigError([
      'AZURE_DEVOPS_WEBHOOK_USER and AZURE_DEVOPS_WEBHOOK_SECRET: set both (the service hook sends HTTP Basic auth) or neither',
    ]);
  }
  return { token, url: normalizeAzureDevOpsUrl(url), webhookUser, webhookSecret };
}
