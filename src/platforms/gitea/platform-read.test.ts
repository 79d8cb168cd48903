/**
 * The Gitea platform's reads against the fake Gitea (a real HTTP server speaking Gitea's API v1,
 * checking every request against Gitea 1.22's swagger) and a real repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, ConfigError, PlatformError } from '../../errors.js';
import { createManyFilesScenario } from '../../../test/support/git-fixtures.js';
import { BOT, createGiteaKit, INDEX, REPO, TOKEN, type GiteaKit } from './gitea-test-kit.test-helper.js';
import { readGiteaSettings } from './settings.js';

describe('Gitea platform: reads', () => {
  let kit: GiteaKit;
  beforeAll(async () => {
    kit = await createGiteaKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('reads the pull request with its SHAs, branches and clone URL', async () => {
    const pr = await kit.platform().getPullRequest(REPO, INDEX);
    expect(pr).toMatchObject({
      repoFullName: REPO,
      number: INDEX,
      title: 'Tune the service constants',
      body: 'Please review.',
      state: 'open',
      authorUsername: 'alice',
      headBranch: 'feature',
      headSha: kit.scenario.headSha,
      baseBranch: 'main',
      baseSha: kit.scenario.baseSha,
      headCloneUrl: kit.fake.gitUrl(REPO),
      headRepoFullName: REPO,
      isFork: false,
      htmlUrl: `${kit.fake.url}/${REPO}/pulls/${INDEX}`,
    });
    expect(kit.fake.requests.at(-1)?.operationId).toBe('repoGetPullRequest');
    expect(kit.fake.violations).toEqual([]);
  });

  it('lists the files with their hunks from the pull request diff', async () => {
    const files = await kit.platform().listPullRequestFiles(REPO, INDEX);
    const byPath = new Map(files.map((f) => [f.path, f]));
    const s = kit.scenario.files;
    expect([...byPath.keys()].sort()).toEqual(Object.keys(s).sort());
    const modified = byPath.get('src/service.ts');
    expect(modified?.status).toBe('modified');
    expect(modified?.patch?.match(/^@@ /gm)).toHaveLength(2);
    expect(modified?.patch).toContain('+export const v3 = 300;');
    expect(byPath.get('old/legacy.txt')?.status).toBe('removed');
    expect(byPath.get('lib/util.ts')).toMatchObject({ status: 'renamed', previousPath: 'lib/util-old.ts' });
    expect(byPath.get('assets/logo.bin')?.patch).toBeUndefined();
    expect(byPath.get('config/settings.ini')?.patch).toContain('\\ No newline at end of file');
    expect(kit.fake.violations).toEqual([]);
  });

  it('reads every page of a long file list', async () => {
    const many = createManyFilesScenario(`${kit.root}/many`, 'acme/many', 120);
    kit.fake.addPullRequest({
      repo: 'acme/many',
      index: 1,
      bareRepoPath: many.bareRepoPath,
      headBranch: many.head,
      baseBranch: many.base,
      title: 'Many files',
    });
    const files = await kit.platform().listPullRequestFiles('acme/many', 1);
    expect(files.map((f) => f.path)).toEqual(many.paths);
    expect(files.every((f) => f.patch?.startsWith('@@ '))).toBe(true);
    const pages = kit.fake.requests.filter(
      (r) => r.operationId === 'repoGetPullRequestFiles' && r.path.includes('/acme/many/'),
    );
    expect(pages.map((r) => r.query.page)).toEqual(['1', '2', '3']);
    expect(kit.fake.violations).toEqual([]);
  });

  it('knows the bot from GET /user and authenticates git as that login with the token', async () => {
    const platform = kit.platform();
    expect(await platform.getBotUsernames()).toEqual([BOT]);
    expect(await platform.getGitCredentials()).toEqual({ username: BOT, password: TOKEN });
  });

  it('reads a file at a commit, and null for a file that is not there', async () => {
    const platform = kit.platform();
    expect(await platform.getFileContent?.(REPO, 'README.md', kit.scenario.mergeBaseSha)).toBe('# widgets\n');
    expect(await platform.getFileContent?.(REPO, 'docs/guide.md', kit.scenario.baseSha)).toBeNull();
    expect(await platform.getFileContent?.(REPO, 'docs/guide.md', kit.scenario.headSha)).toContain(
      'Guide line 1.',
    );
    expect(kit.fake.violations).toEqual([]);
  });

  it('compares commits: ahead with the changed files as hunks, diverged, identical, unknown', async () => {
    const platform = kit.platform();
    const { mergeBaseSha, headSha, baseSha } = kit.scenario;
    const ahead = await platform.compareCommits?.(REPO, mergeBaseSha, headSha);
    expect(ahead?.status).toBe('ahead');
    const service = ahead?.files.find((f) => f.path === 'src/service.ts');
    expect(service?.patch).toContain('-export const v3 = 3;\n+export const v3 = 300;');
    expect(ahead?.files.find((f) => f.path === 'old/legacy.txt')?.status).toBe('removed');
    expect(ahead?.files.find((f) => f.path === 'docs/guide.md')?.status).toBe('added');
    expect((await platform.compareCommits?.(REPO, baseSha, headSha))?.status).toBe('diverged');
    expect((await platform.compareCommits?.(REPO, headSha, mergeBaseSha))?.status).toBe('behind');
    expect((await platform.compareCommits?.(REPO, headSha, headSha))?.status).toBe('identical');
    expect(await platform.compareCommits?.(REPO, 'f'.repeat(40), headSha)).toBeNull();
    expect(kit.fake.violations).toEqual([]);
  });

  it('tells a server without the compare API (404 for known commits) from an unknown commit', async () => {
    const platform = kit.platform();
    const { mergeBaseSha, headSha } = kit.scenario;
    kit.fake.failNext('GET', /\/compare\//, 404, { message: 'not found' });
    const error = await platform.compareCommits?.(REPO, mergeBaseSha, headSha).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as Error).message).toMatch(/no compare API/);
    expect(kit.fake.violations).toEqual([]);
  });

  it('throws AuthError naming GITEA_TOKEN on 401, without the token', async () => {
    const error = await kit
      .platform({ GITEA_TOKEN: 'wrong-token-0000' })
      .getPullRequest(REPO, INDEX)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(/Gitea rejected the credentials.*GITEA_TOKEN/);
    expect((error as Error).message).not.toContain('wrong-token-0000');
  });

  it('needs GITEA_URL with GITEA_TOKEN and strips a trailing /api/v1', () => {
    expect(readGiteaSettings({})).toBeUndefined();
    expect(() => readGiteaSettings({ GITEA_TOKEN: 't' })).toThrow(ConfigError);
    expect(() => readGiteaSettings({ GITEA_TOKEN: 't' })).toThrow(/GITEA_URL: required/);
    expect(
      readGiteaSettings({ GITEA_TOKEN: 't', GITEA_URL: 'https://git.example.com/sub/api/v1/' })?.url,
    ).toBe('https://git.example.com/sub');
  });
});
