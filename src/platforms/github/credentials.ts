/**
 * GitHub credentials from the environment (CONTRACT §4): a token (`CODEHOST_TOKEN`, alias
 * `GITHUB_TOKEN`) or a GitHub App (`CODEHOST_APP_ID`, `CODEHOST_INSTALLATION_ID`,
 * `CODEHOST_APP_PRIVATE_KEY`, aliases `GITHUB_APP_*`), the API base and the webhook secret.
 */
import { ConfigError } from '../../errors.js';

/** Resolved GitHub settings. */
export interface GitHubSettings {
  auth:
    | { kind: 'token'; token: string }
    | { kind: 'app'; appId: string; installationId: number; privateKey: string };
  /** REST API base, without trailing slash (default `https://api.github.com`). */
  apiUrl: string;
  /** `CODEHOST_WEBHOOK_SECRET` / `GITHUB_WEBHOOK_SECRET`, when set. */
  webhookSecret: string | undefined;
}

function pick(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * Reads GitHub settings from `env`; `undefined` when no credentials are set (platform disabled).
 * @throws ConfigError when App credentials are incomplete or malformed.
 */
export function readGitHubSettings(env: NodeJS.ProcessEnv): GitHubSettings | undefined {
  const apiUrl = (pick(env, 'CODEHOST_API_URL', 'GITHUB_API_URL') ?? 'https://api.github.com').replace(
    /\/+$/,
    '',
  );
  const webhookSecret = pick(env, 'CODEHOST_WEBHOOK_SECRET', 'GITHUB_WEBHOOK_SECRET');
  const appId = pick(env, 'CODEHOST_APP_ID', 'GITHUB_APP_ID');
  const installationId = pick(
    env,
    'CODEHOST_INSTALLATION_ID',
    'GITHUB_APP_INSTALLATION_ID',
    'GITHUB_INSTALLATION_ID',
  );
  const privateKey = pick(env, 'CODEHOST_APP_PRIVATE_KEY', 'GITHUB_APP_PRIVATE_KEY');
  if (appId || installationId || privateKey) {
    const missing = [
      appId ? undefined : 'CODEHOST_APP_ID',
      installationId ? undefined : 'CODEHOST_INSTALLATION_ID',
      privateKey ? undefined : 'CODEHOST_APP_PRIVATE_KEY',
    ].filter((name): name is string => name !== undefined);
    if (missing.length > 0) {
      throw new ConfigError(missing.map((name) => `${name}: required with the other GitHub App settings`));
    }
    if (!/^[0-9]+$/.test(installationId as string)) {
      throw new ConfigError(['CODEHOST_INSTALLATION_ID: must be a number']);
    }
    // Private keys are often stored with literal "\n" in one-line secrets.
    const pem = (privateKey as string).includes('\\n')
      ? (privateKey as string).replace(/\\n/g, '\n')
      : privateKey;
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem as string)) {
      throw new ConfigError(['CODEHOST_APP_PRIVATE_KEY: not a PEM private key']);
    }
    return {
      auth: {
        kind: 'app',
        appId: appId as string,
        installationId: Number(installationId),
        privateKey: pem as string,
      },
      apiUrl,
      webhookSecret,
    };
  }
  const token = pick(env, 'CODEHOST_TOKEN', 'GITHUB_TOKEN');
  if (!token) return undefined;
  return { auth: { kind: 'token', token }, apiUrl, webhookSecret };
}
