import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { COMMIT_SHA, isBranchName, isDecimalId, isHttpUrl, isPrNumber, isRepoFilePath } from './git-names.js';
import { isGitHubFullName, isGitHubOwner, isGitHubRepoName } from './github/names.js';
import { isGitLabNamespace, isGitLabProjectPath } from './gitlab/names.js';

describe('GitHub names', () => {
  it.each([
    ['octocat', true],
    ['Codertocat', true],
    ['a', true],
    ['my-org-2', true],
    ['octo_acme', true], // Enterprise Managed User: handle_shortcode
    ['x'.repeat(39), true],
    ['x'.repeat(40), false],
    ['-acme', false],
    ['acme-', false],
    ['ac--me', false],
    ['ac.me', false],
    ['..', false],
    ['', false],
    ['acmé', false],
  ])('owner %j → %s', (name, ok) => {
    expect(isGitHubOwner(name)).toBe(ok);
  });

  it.each([
    ['widgets', true],
    ['.github', true],
    ['my.repo_1-x', true],
    ['..x', true],
    ['r'.repeat(100), true],
    ['r'.repeat(101), false],
    ['.', false],
    ['..', false],
    ['a.git', false],
    ['A.GIT', false],
    ['wid gets', false],
    ['wid/gets', false],
    ['', false],
  ])('repository %j → %s', (name, ok) => {
    expect(isGitHubRepoName(name)).toBe(ok);
  });

  it.each([
    ['acme/widgets', true],
    ['acme/..', false],
    ['acme', false],
    ['acme/widgets/x', false],
    ['/widgets', false],
  ])('full name %j → %s', (name, ok) => {
    expect(isGitHubFullName(name)).toBe(ok);
  });

  it('accepts every repository, ref and SHA of the real payloads in @octokit/webhooks-examples', () => {
    type Json = Record<string, unknown>;
    const events = createRequire(import.meta.url)('@octokit/webhooks-examples') as Array<{
      examples: Json[];
    }>;
    const names = new Set<string>();
    const refs = new Set<string>();
    const shas = new Set<string>();
    for (const example of events.flatMap((event) => event.examples)) {
      const repo = example.repository as Json | undefined;
      if (typeof repo?.full_name === 'string') names.add(repo.full_name);
      const pr = example.pull_request as { head?: Json; base?: Json } | undefined;
      for (const side of [pr?.head, pr?.base]) {
        if (typeof side?.ref === 'string') refs.add(side.ref);
        if (typeof side?.sha === 'string') shas.add(side.sha);
      }
    }
    expect(names.size).toBeGreaterThan(3);
    expect(refs.size).toBeGreaterThan(1);
    expect([...names].filter((name) => !isGitHubFullName(name))).toEqual([]);
    expect([...refs].filter((ref) => !isBranchName(ref))).toEqual([]);
    expect([...shas].filter((sha) => !COMMIT_SHA.test(sha))).toEqual([]);
  });
});

describe('GitLab names', () => {
  it.each([
    ['gitlab-org', true],
    ['_group', true],
    ['.dot', true],
    ['g.x_y-z', true],
    ['x'.repeat(255), true],
    ['x'.repeat(256), false],
    ['g.', false],
    ['g.git', false],
    ['g.atom', false],
    ['-g', false],
    ['.', false],
    ['..', false],
    ['g g', false],
    ['', false],
  ])('namespace or username %j → %s', (name, ok) => {
    expect(isGitLabNamespace(name)).toBe(ok);
  });

  it.each([
    ['gitlab-org/platform/gitlab-test', true],
    ['g/p.', true],
    [Array.from({ length: 22 }, (_, i) => `g${i}`).join('/'), true],
    [Array.from({ length: 23 }, (_, i) => `g${i}`).join('/'), false],
    ['group', false],
    ['g/p.git', false],
    ['g/..', false],
    ['g./p', false],
    ['g//p', false],
    ['../../etc', false],
  ])('project path %j → %s', (path, ok) => {
    expect(isGitLabProjectPath(path)).toBe(ok);
  });
});

describe('git names', () => {
  it.each([
    ['main', true],
    ['feature/x-1', true],
    ['release/v1.2', true],
    ['ümlaut', true],
    ['a'.repeat(255), true],
    ['a'.repeat(256), false],
    ['ü'.repeat(128), false], // 256 bytes
    ['@', false],
    ['a@{1}', false],
    ['..', false],
    ['a..b', false],
    ['-x', false],
    ['/x', false],
    ['x/', false],
    ['x.', false],
    ['x.lock', false],
    ['a/.hidden', false],
    ['a//b', false],
    ['a b', false],
    ['a\tb', false],
    ['a~1', false],
    ['a^', false],
    ['a:b', false],
    ['a?', false],
    ['a*', false],
    ['a[b', false],
    ['a\\b', false],
    ['', false],
  ])('branch %j → %s', (name, ok) => {
    expect(isBranchName(name)).toBe(ok);
  });

  it.each([
    [1, true],
    [2 ** 31 - 1, true],
    [0, false],
    [2 ** 31, false],
    [1.5, false],
    ['1', false],
  ])('pull request number %j → %s', (n, ok) => {
    expect(isPrNumber(n)).toBe(ok);
  });

  it.each([
    ['1', true],
    ['9223372036854775807', true],
    ['9223372036854775808', false],
    ['0', false],
    ['01', false],
    ['1e3', false],
  ])('id %j → %s', (id, ok) => {
    expect(isDecimalId(id)).toBe(ok);
  });

  it.each([
    ['src/a.ts', true],
    ['.github/workflows/ci.yml', true],
    ['../a', false],
    ['/etc/passwd', false],
    ['a/./b', false],
    ['a\nb', false],
    ['', false],
  ])('file path %j → %s', (path, ok) => {
    expect(isRepoFilePath(path)).toBe(ok);
  });

  it.each([
    ['https://github.com/a/b.git', true],
    ['http://127.0.0.1:3000/git/a/b.git', true],
    ['file:///etc', false],
    ['ext::sh -c id', false],
    ['git@github.com:a/b.git', false],
    ['https://user:pw@github.com/a/b.git', false],
  ])('clone URL %j → %s', (url, ok) => {
    expect(isHttpUrl(url)).toBe(ok);
  });
});
