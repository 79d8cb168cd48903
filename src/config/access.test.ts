import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { PLATFORM_NAMES } from '../platforms/types.js';
import {
  ACCESS_PLATFORMS,
  accessNamesFor,
  bareAccessWarning,
  isAllowedRepo,
  isAllowedUser,
  parseAccessEntry,
} from './access.js';
import { loadConfig } from './load-config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-access-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const none = { systemConfigPath: path.join(dir, 'absent.yaml'), cwd: dir };

describe('parseAccessEntry', () => {
  it('knows every platform name', () => {
    expect([...ACCESS_PLATFORMS].sort()).toEqual([...PLATFORM_NAMES].sort());
  });

  it.each([
    ['github:alice', { platform: 'github', name: 'alice' }],
    ['GitHub:alice', { platform: 'github', name: 'alice' }],
    ['bitbucket-server:jdoe', { platform: 'bitbucket-server', name: 'jdoe' }],
    ['gitlab:group/sub/project', { platform: 'gitlab', name: 'group/sub/project' }],
    ['azure-devops:Fabrikam Fiber/widgets', { platform: 'azure-devops', name: 'Fabrikam Fiber/widgets' }],
    ['azure-devops:FABRIKAM\\bob', { platform: 'azure-devops', name: 'FABRIKAM\\bob' }],
    // A colon that follows no platform name belongs to the name.
    ['557058:6f1b2c3d-aaaa-bbbb-cccc-0123456789ab', { name: '557058:6f1b2c3d-aaaa-bbbb-cccc-0123456789ab' }],
    ['bitbucket:557058:6f1b', { platform: 'bitbucket', name: '557058:6f1b' }],
    ['{6f1b2c3d-aaaa}', { name: '{6f1b2c3d-aaaa}' }],
    ['FABRIKAM\\bob', { name: 'FABRIKAM\\bob' }],
    ['alice@example.com', { name: 'alice@example.com' }],
    ['gihub:alice', { name: 'gihub:alice' }],
    [':alice', { name: ':alice' }],
    ['alice', { name: 'alice' }],
  ])('%j → %j', (entry, expected) => {
    expect(parseAccessEntry(entry)).toEqual(expected);
  });
});

describe('isAllowedUser', () => {
  const users = ['github:alice', 'gitlab:Bob', 'carol', 'azure-devops:FABRIKAM\\dave', '557058:6f1b'];

  it.each([
    ['alice', 'github', true],
    ['ALICE', 'github', true],
    ['alice', 'gitlab', false], // another person may hold the name there
    ['alice', 'gitea', false],
    ['bob', 'gitlab', true],
    ['bob', 'github', false],
    ['carol', 'github', true], // bare: every platform, as before
    ['carol', 'azure-devops', true],
    ['fabrikam\\dave', 'azure-devops', true],
    ['FABRIKAM\\dave', 'bitbucket-server', false],
    ['{557058:6f1b}', 'bitbucket', true], // Bitbucket Cloud authors are {account id}
    ['557058:6f1b', 'bitbucket-server', true],
    ['{carol}', 'bitbucket-server', false],
    ['alice', undefined, false], // no platform: only bare entries
    ['carol', undefined, true],
  ] as const)('%s on %s: %s', (login, platform, expected) => {
    expect(isAllowedUser(login, users, platform)).toBe(expected);
  });

  it('allows nobody with an empty list or only entries of other platforms', () => {
    expect(isAllowedUser('alice', [], 'github')).toBe(false);
    expect(accessNamesFor(['github:alice'], 'gitlab')).toEqual([]);
  });
});

describe('isAllowedRepo', () => {
  const repos = ['github:acme/widgets', 'azure-devops:Fabrikam Fiber/widgets', 'shared/tools'];

  it.each([
    ['acme/widgets', 'github', true],
    ['ACME/Widgets', 'github', true],
    ['acme/widgets', 'gitlab', false],
    ['acme/widgets', 'gitea', false],
    ['fabrikam fiber/widgets', 'azure-devops', true],
    ['Fabrikam Fiber/widgets', 'github', false],
    ['shared/tools', 'gitlab', true],
    ['shared/tools', 'bitbucket', true],
    ['other/repo', 'github', false],
  ] as const)('%s on %s: %s', (repo, platform, expected) => {
    expect(isAllowedRepo(repo, repos, platform)).toBe(expected);
  });

  it('serves every repository with an empty list, none of a platform no entry applies to', () => {
    expect(isAllowedRepo('any/repo', [], 'gitlab')).toBe(true);
    expect(isAllowedRepo('acme/widgets', ['github:acme/widgets'], 'gitlab')).toBe(false);
  });
});

describe('allow lists in the configuration', () => {
  function problems(env: NodeJS.ProcessEnv): string[] {
    try {
      loadConfig({ ...none, env });
    } catch (error) {
      if (error instanceof ConfigError) return error.issues;
      throw error;
    }
    return [];
  }

  it('takes platform-tied entries, Azure DevOps names with spaces included, from the environment', () => {
    const { config } = loadConfig({
      ...none,
      env: {
        ALLOWED_USERS: 'github:alice, azure-devops:FABRIKAM\\bob, 557058:6f1b',
        ALLOWED_REPOS: 'gitlab:group/sub/project, azure-devops:Fabrikam Fiber/widgets, acme/widgets',
      },
    });
    expect(config.access).toEqual({
      allowed_users: ['github:alice', 'azure-devops:FABRIKAM\\bob', '557058:6f1b'],
      allowed_repos: ['gitlab:group/sub/project', 'azure-devops:Fabrikam Fiber/widgets', 'acme/widgets'],
    });
  });

  it.each([
    [
      { ALLOWED_USERS: 'github:' },
      /access\.allowed_users\.0 \(from ALLOWED_USERS\): "github:" names no user/,
    ],
    [
      { ALLOWED_REPOS: 'gitlab:' },
      /access\.allowed_repos\.0 \(from ALLOWED_REPOS\): "gitlab:" names no repository/,
    ],
    [{ ALLOWED_REPOS: 'github:widgets' }, /access\.allowed_repos\.0 .*must be <owner>\/<repo>/],
    [{ ALLOWED_REPOS: 'acme//widgets' }, /access\.allowed_repos\.0 .*must be <owner>\/<repo>/],
    [
      { ALLOWED_REPOS: 'azure-devops:Fabrikam /widgets' },
      /access\.allowed_repos\.0 .*must be <owner>\/<repo>/,
    ],
    [{ ALLOWED_REPOS: 'not-a-repo' }, /access\.allowed_repos\.0 .*must be <owner>\/<repo>/],
  ])('refuses %j naming the key', (env, message) => {
    expect(problems(env)).toEqual([expect.stringMatching(message)]);
  });

  it("reads the documentation's example as it says", () => {
    const doc = readFileSync(path.resolve('docs/configuration.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Who may use the bot'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const file = path.join(dir, 'access.yaml');
    writeFileSync(file, yaml);
    const { access } = loadConfig({ ...none, configFile: file, env: {} }).config;
    expect(isAllowedUser('alice', access.allowed_users, 'github')).toBe(true);
    expect(isAllowedUser('alice', access.allowed_users, 'gitlab')).toBe(false);
    expect(isAllowedUser('FABRIKAM\\bob', access.allowed_users, 'azure-devops')).toBe(true);
    expect(isAllowedUser('carol', access.allowed_users, 'gitea')).toBe(true);
    expect(isAllowedRepo('Fabrikam Fiber/widgets', access.allowed_repos, 'azure-devops')).toBe(true);
    expect(isAllowedRepo('acme/widgets', access.allowed_repos, 'gitlab')).toBe(false);
    const sh = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const env = Object.fromEntries([...sh.matchAll(/([A-Z_]+)='([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
    expect(loadConfig({ ...none, env }).config.access).toEqual({
      allowed_users: ['github:alice', 'gitlab:alice.smith'],
      allowed_repos: ['azure-devops:Fabrikam Fiber/widgets'],
    });
  });
});

describe('bareAccessWarning', () => {
  const access = { allowed_users: ['github:alice', 'carol'], allowed_repos: ['acme/widgets'] };

  it('warns when several platforms are enabled and a list holds bare entries, naming them', () => {
    const warning = bareAccessWarning(access, ['github', 'gitlab']);
    expect(warning).toContain('(github, gitlab)');
    // The tied entry github:alice is not named.
    expect(warning).toContain('(access.allowed_users: carol; access.allowed_repos: acme/widgets)');
  });

  it('says nothing for one platform, or when every entry names its platform', () => {
    expect(bareAccessWarning(access, ['github'])).toBeUndefined();
    expect(
      bareAccessWarning({ allowed_users: ['github:alice'], allowed_repos: ['gitlab:a/b'] }, [
        'github',
        'gitlab',
      ]),
    ).toBeUndefined();
    expect(bareAccessWarning({ allowed_users: [], allowed_repos: [] }, ['github', 'gitlab'])).toBeUndefined();
  });
});
