/**
 * Who a request comes from: `Authorization: token <t>` or `Bearer <t>` (scheme case-insensitive,
 * as GitHub) with the personal access token, a live installation token, or an App JWT; git over
 * HTTP uses Basic auth with the token as password (any user name, e.g. `x-access-token`).
 */
import type { KeyObject } from 'node:crypto';
import { looksLikeJwt, verifyAppJwt, type InstallationToken } from './app-auth.js';
import type { Identity } from './route-types.js';
import type { AppIdentity } from './shapes-core.js';

/** Credentials the fake accepts. */
export interface AuthConfig {
  token: string;
  login: string;
  app?: { identity: AppIdentity; key: KeyObject; clientId: string };
  /** Minted installation tokens by token text. */
  installationTokens: Map<string, InstallationToken>;
}

/** Result of authenticating an API request. */
export type AuthOutcome =
  { ok: true; identity: Identity } | { ok: false; message: string; kind: 'none' | 'invalid' };

/** The acting login of an App installation: `<slug>[bot]`. */
export function botLogin(app: AppIdentity): string {
  return `${app.slug}[bot]`;
}

/** True when `token` is a minted installation token that has not expired at `nowMs`. */
export function isLiveInstallationToken(config: AuthConfig, token: string, nowMs: number): boolean {
  const minted = config.installationTokens.get(token);
  return minted !== undefined && minted.expiresAtMs > nowMs;
}

/** Authenticates the `Authorization` header of an API request at time `nowMs`. */
export function authenticate(config: AuthConfig, header: string | undefined, nowMs: number): AuthOutcome {
  const match = /^(token|bearer)\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return { ok: false, message: 'Bad credentials', kind: header ? 'invalid' : 'none' };
  const token = match[2] ?? '';
  if (token === config.token) return { ok: true, identity: { kind: 'token', login: config.login } };
  if (config.app && isLiveInstallationToken(config, token, nowMs)) {
    const permissions = config.installationTokens.get(token)?.permissions;
    const identity: Identity = { kind: 'installation', login: botLogin(config.app.identity) };
    return { ok: true, identity: permissions ? { ...identity, permissions } : identity };
  }
  if (config.app && looksLikeJwt(token)) {
    const { identity, key, clientId } = config.app;
    const check = verifyAppJwt(token, key, identity.appId, clientId, Math.floor(nowMs / 1000));
    if (!check.ok) return { ok: false, message: check.message, kind: 'invalid' };
    return { ok: true, identity: { kind: 'app', login: identity.slug } };
  }
  return { ok: false, message: 'Bad credentials', kind: 'invalid' };
}

/** The password of a Basic `Authorization` header, if any. */
export function basicPassword(header: string | undefined): { user: string; password: string } | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
