import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { createSign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit, runGitAsync, SCENARIO_PATHS } from '../git-fixtures.js';
import { generateAppKeyPair } from './app-auth.js';
import { startScenarioFake, statusOf, TOKEN, type ScenarioFake } from './test-kit.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const APP_ID = 4242;
const INSTALLATION_ID = 99;

function basic(password: string): string {
  return `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${password}`).toString('base64')}`;
}

/** Clones from the fake; asynchronous, since the fake runs in this process. */
async function clone(env: ScenarioFake, dest: string, password?: string): Promise<void> {
  const auth = password === undefined ? [] : ['-c', basic(password)];
  await runGitAsync(env.root, [
    ...auth,
    'clone',
    '--quiet',
    '--branch',
    'feature',
    env.fake.gitUrl('acme', 'widgets'),
    dest,
  ]);
}

function jwt(privateKeyPem: string, claims: Record<string, unknown>): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const data = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${data}.${createSign('RSA-SHA256').update(data).sign(privateKeyPem, 'base64url')}`;
}

describe('fake GitHub: git over HTTP', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it('clones with the token as password', async () => {
    const dest = join(env.root, 'clone-ok');
    await clone(env, dest, TOKEN);
    expect(readFileSync(join(dest, SCENARIO_PATHS.added), 'utf8')).toContain('Guide line 1.');
    expect(runGit(dest, ['rev-parse', 'HEAD']).trim()).toBe(env.scenario.headSha);
    expect(env.fake.gitRequests.some((r) => r.authorized && r.service === 'git-upload-pack')).toBe(true);
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong password', 'nope'],
  ])('refuses a clone with %s', async (_label, password) => {
    const dest = join(env.root, `clone-${password ?? 'none'}`);
    await expect(clone(env, dest, password)).rejects.toThrow(
      /401|Authentication failed|could not read Username/,
    );
    expect(existsSync(join(dest, SCENARIO_PATHS.added))).toBe(false);
    expect(env.fake.gitRequests.at(-1)?.authorized).toBe(false);
  });
});

describe('fake GitHub: GitHub App authentication', () => {
  const keys = generateAppKeyPair();
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake({
      app: {
        appId: APP_ID,
        installationId: INSTALLATION_ID,
        privateKeyPem: keys.privateKeyPem,
        slug: 'review-app',
      },
    });
  });
  afterAll(() => env.close());

  function appOctokit(privateKey = keys.privateKeyPem, installationId = INSTALLATION_ID): Octokit {
    return new Octokit({
      baseUrl: env.fake.url,
      log: silent,
      authStrategy: createAppAuth,
      auth: { appId: APP_ID, privateKey, installationId },
    });
  }

  it('serves GET /app with the slug to a valid JWT', async () => {
    const { data } = await appOctokit().rest.apps.getAuthenticated();
    expect(data).toMatchObject({ id: APP_ID, slug: 'review-app' });
    expect(env.fake.requests.at(-1)?.auth).toBe('app');
  });

  it('mints an installation token that authorizes the API as <slug>[bot] and git', async () => {
    const octokit = appOctokit();
    const { data } = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 1 });
    expect(data.head.sha).toBe(env.scenario.headSha);
    const minted = env.fake.requests.find((r) => r.operationId === 'apps/create-installation-access-token');
    expect(minted?.status).toBe(201);
    expect(env.fake.requests.at(-1)).toMatchObject({ operationId: 'pulls/get', auth: 'installation' });

    await octokit.rest.issues.createComment({
      owner: 'acme',
      repo: 'widgets',
      issue_number: 1,
      body: 'from the App',
    });
    expect(env.fake.issueComments.at(-1)?.user).toMatchObject({ login: 'review-app[bot]', type: 'Bot' });
    expect((await statusOf(octokit.rest.users.getAuthenticated())).status).toBe(403);

    const token = env.fake.installationTokens[0] ?? '';
    expect(token).toMatch(/^ghs_/);
    const dest = join(env.root, 'clone-app');
    await clone(env, dest, token);
    expect(existsSync(join(dest, SCENARIO_PATHS.added))).toBe(true);
    expect(JSON.stringify(env.fake.requests)).not.toContain(token);
    expect(env.fake.writeRequests().map((r) => r.operationId)).toEqual(['issues/create-comment']);
    expect(env.fake.violations).toEqual([]);
  });

  it('refuses a JWT signed with another key', async () => {
    const other = generateAppKeyPair();
    expect((await statusOf(appOctokit(other.privateKeyPem).rest.apps.getAuthenticated())).status).toBe(401);
  });

  it('refuses a token for another installation with 404', async () => {
    expect(
      (
        await statusOf(
          appOctokit(keys.privateKeyPem, 1).rest.pulls.get({
            owner: 'acme',
            repo: 'widgets',
            pull_number: 1,
          }),
        )
      ).status,
    ).toBe(404);
  });

  it.each([
    ['expired', { iat: -700, exp: -100, iss: APP_ID }, /Expiration time/],
    ['valid for over 10 minutes', { iat: 0, exp: 3600, iss: APP_ID }, /too far in the future/],
    ['issued by another App', { iat: 0, exp: 300, iss: 1 }, /Issuer/],
  ])('refuses a JWT that is %s', async (_label, claims, message) => {
    const now = Math.floor(Date.now() / 1000);
    const token = jwt(keys.privateKeyPem, { iat: now + claims.iat, exp: now + claims.exp, iss: claims.iss });
    const res = await fetch(`${env.fake.url}/app`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
  });

  it('refuses the personal token on App endpoints', async () => {
    const res = await fetch(`${env.fake.url}/app`, { headers: { authorization: `token ${TOKEN}` } });
    expect(res.status).toBe(401);
  });
});
