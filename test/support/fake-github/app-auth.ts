/**
 * GitHub App authentication as GitHub checks it: an RS256 JWT signed with the App's private key,
 * `iss` = the App id (or client id), `exp` in the future and at most 10 minutes ahead, `iat` not in
 * the future (60 s of clock drift tolerated); installation access tokens (`ghs_…`, valid 1 hour)
 * minted from it. Source: docs.github.com "Generating a JSON Web Token (JWT) for a GitHub App".
 */
import { createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';

/** An RSA key pair in PEM: the private key in PKCS#1 (`BEGIN RSA PRIVATE KEY`), as GitHub issues them. */
export interface AppKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

/** Generates a 2048-bit RSA key pair for a test App (~50-200 ms). */
export function generateAppKeyPair(): AppKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** The public key to verify JWTs with, from a public or a private PEM. Throws on an invalid PEM. */
export function appPublicKey(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** Outcome of a JWT check: ok, or GitHub's 401 message. */
export type JwtCheck = { ok: true } | { ok: false; message: string };

const MAX_LIFETIME_S = 600;
const DRIFT_S = 60;

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** True when `token` has the three dot-separated parts of a JWT. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/**
 * Verifies an App JWT: signature (RS256) with `key`, `iss` equal to `appId` or `clientId`, `exp`
 * after `nowS` but no more than 10 minutes after it, `iat` not after `nowS` (+60 s drift).
 * `nowS` is in seconds since the epoch. Messages are GitHub's.
 */
export function verifyAppJwt(
  token: string,
  key: KeyObject,
  appId: number,
  clientId: string,
  nowS: number,
): JwtCheck {
  const [h = '', p = '', s = ''] = token.split('.');
  const header = decodeJson(h);
  const payload = decodeJson(p);
  if (!header || !payload || header.alg !== 'RS256') {
    return { ok: false, message: 'A JSON web token could not be decoded' };
  }
  if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) {
    return { ok: false, message: 'A JSON web token could not be decoded' };
  }
  const { iss, exp, iat } = payload;
  if (String(iss) !== String(appId) && iss !== clientId) {
    return { ok: false, message: "'Issuer' claim ('iss') must be an Integer" };
  }
  if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > nowS + DRIFT_S) {
    return {
      ok: false,
      message:
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
    };
  }
  if (typeof exp !== 'number' || exp <= nowS) {
    return {
      ok: false,
      message:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    };
  }
  if (exp > nowS + MAX_LIFETIME_S + DRIFT_S) {
    return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
  }
  return { ok: true };
}

/** An installation access token the fake minted. */
export interface InstallationToken {
  token: string;
  /** Expiry in ms since the epoch. */
  expiresAtMs: number;
  /** Repository names the token was restricted to (`repositories` of the request); all when absent. */
  repositories?: string[];
  /** Permissions the token was restricted to (`permissions` of the request); the App's when absent. */
  permissions?: Record<string, string>;
}

/** Mints a new installation token valid for one hour from `nowMs`. */
export function mintInstallationToken(nowMs: number): InstallationToken {
  return { token: `ghs_${randomBytes(18).toString('base64url')}`, expiresAtMs: nowMs + 3_600_000 };
}
