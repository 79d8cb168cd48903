import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManyFilesScenario, type ManyFilesScenario } from '../git-fixtures.js';
import { startFakeGitHub } from './fake-github.js';
import { octokitFor, tempDir, TOKEN } from './test-kit.js';
import type { FakeGitHub } from './types.js';

const pr = { owner: 'acme', repo: 'many', pull_number: 7 };

describe('fake GitHub: pagination like GitHub', () => {
  const dir = tempDir('fake-github-pages-');
  let fake: FakeGitHub;
  let scenario: ManyFilesScenario;
  beforeAll(async () => {
    scenario = createManyFilesScenario(dir.path, 'acme/many', 150);
    fake = await startFakeGitHub({ token: TOKEN });
    await fake.addPullRequest({
      ...pr,
      number: 7,
      bareRepoPath: scenario.bareRepoPath,
      base: 'main',
      head: 'feature',
      title: 'Many',
    });
  });
  afterAll(async () => {
    await fake.close();
    dir.remove();
  });

  it('follows Link rel="next" across more than 100 files', async () => {
    const octokit = octokitFor(fake);
    const files = await octokit.paginate(octokit.rest.pulls.listFiles, { ...pr, per_page: 100 });
    expect(files.map((f) => f.filename)).toEqual(scenario.paths);
    const pages = fake.requests.filter((r) => r.path.endsWith('/files'));
    expect(pages.map((r) => r.query.page ?? '1')).toEqual(['1', '2']);
    expect(fake.violations).toEqual([]);
  });

  it.each([
    ['default per_page 30', '', 30, 5],
    ['per_page capped at 100', '?per_page=500', 100, 2],
    ['per_page 40', '?per_page=40', 40, 4],
  ])('%s', async (_label, query, size, last) => {
    const res = await fetch(`${fake.url}/repos/acme/many/pulls/7/files${query}`, {
      headers: { authorization: `token ${TOKEN}` },
    });
    expect(((await res.json()) as unknown[]).length).toBe(size);
    const link = res.headers.get('link') ?? '';
    expect(link).toMatch(/[?&]page=2>; rel="next"/);
    expect(link).toContain(`page=${last}>; rel="last"`);
    expect(link).not.toContain('rel="prev"');
  });

  it('links prev and first from the last page and sends no next', async () => {
    const res = await fetch(`${fake.url}/repos/acme/many/pulls/7/files?per_page=100&page=2`, {
      headers: { authorization: `token ${TOKEN}` },
    });
    expect(((await res.json()) as unknown[]).length).toBe(50);
    const link = res.headers.get('link') ?? '';
    expect(link).toContain('page=1>; rel="prev"');
    expect(link).toContain('rel="first"');
    expect(link).not.toContain('rel="next"');
  });

  it('pages more than 100 issue and review comments in order', async () => {
    for (let i = 1; i <= 120; i += 1)
      fake.addIssueComment({ ...pr, number: 7, body: `c${i}`, user: 'alice' });
    for (let i = 1; i <= 105; i += 1) {
      await fake.addReviewComment({
        ...pr,
        number: 7,
        body: `r${i}`,
        user: 'bob',
        path: scenario.paths[i - 1] ?? '',
        line: 1,
      });
    }
    const octokit = octokitFor(fake);
    const issue = await octokit.paginate(octokit.rest.issues.listComments, {
      ...pr,
      issue_number: 7,
      per_page: 100,
    });
    expect(issue.map((c) => c.body)).toEqual(Array.from({ length: 120 }, (_, i) => `c${i + 1}`));
    const inline = await octokit.paginate(octokit.rest.pulls.listReviewComments, { ...pr, per_page: 100 });
    expect(inline.map((c) => c.body)).toEqual(Array.from({ length: 105 }, (_, i) => `r${i + 1}`));
    const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, pr);
    expect(reviews).toHaveLength(105);
    expect(fake.violations).toEqual([]);
  });

  it('answers a page past the end with an empty list', async () => {
    const octokit = octokitFor(fake);
    const { data } = await octokit.rest.pulls.listFiles({ ...pr, per_page: 100, page: 9 });
    expect(data).toEqual([]);
  });
});
