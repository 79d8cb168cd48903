/**
 * The GitLab platform's read operations against the fake GitLab over real HTTP, on a real
 * repository: merge request details, diffs (all pages), discussions, the bot identity, and error
 * mapping. Expectations come from the scenario's hand-computed line numbers.
 */
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, PlatformError } from '../../errors.js';
import { DiffIndex } from '../../diff/diff-index.js';
import { toFileDiffs } from '../../diff/diff.js';
import { createManyFilesScenario, SCENARIO_PATHS } from '../../../test/support/git-fixtures.js';
import { createGitLabKit, IID, PROJECT, TOKEN, type GitLabKit } from './gitlab-test-kit.test-helper.js';

describe('GitLab platform: reading a merge request', () => {
  let kit: GitLabKit;
  beforeAll(async () => {
    kit = await createGitLabKit();
  });
  afterAll(async () => {
    await kit?.close();
  });

  it('reads branch, SHAs, state and the clone URL, addressing the nested project URL-encoded', async () => {
    const pr = await kit.platform().getPullRequest(PROJECT, IID);
    const refs = await kit.fake.diffRefs(PROJECT, IID);
    expect(pr).toEqual({
      repoFullName: PROJECT,
      number: IID,
      title: 'Tune the service constants',
      body: 'Please review.',
      state: 'open',
      authorUsername: 'alice',
      headBranch: 'feature',
      headSha: kit.scenario.headSha,
      baseBranch: 'main',
      baseSha: kit.scenario.baseSha,
      headCloneUrl: `${kit.fake.url}/${PROJECT}.git`,
      headRepoFullName: PROJECT,
      isFork: false,
      htmlUrl: `${kit.fake.url}/${PROJECT}/-/merge_requests/${IID}`,
    });
    expect(refs).toEqual({
      base_sha: kit.scenario.mergeBaseSha,
      start_sha: kit.scenario.baseSha,
      head_sha: kit.scenario.headSha,
    });
    expect(kit.fake.requests.map((r) => r.path)).toContain(
      '/api/v4/projects/acme%2Fplatform%2Fwidgets/merge_requests/3',
    );
    expect(kit.fake.requests.every((r) => r.authorized)).toBe(true);
    expect(kit.fake.violations).toEqual([]);
  });

  it.each([
    ['merged', 'merged'],
    ['closed', 'closed'],
    ['locked', 'open'],
    ['opened', 'open'],
  ] as const)('maps GitLab state %s to %s', async (gitlab, expected) => {
    kit.fake.setMergeRequestState(PROJECT, IID, gitlab);
    try {
      expect((await kit.platform().getPullRequest(PROJECT, IID)).state).toBe(expected);
    } finally {
      kit.fake.setMergeRequestState(PROJECT, IID, 'opened');
    }
  });

  it('maps every diff entry to a GitHub-style file whose lines match the hand-computed diff', async () => {
    const files = await kit.platform().listPullRequestFiles(PROJECT, IID);
    const byPath = new Map(files.map((f) => [f.path, f]));
    expect([...byPath.keys()].sort()).toEqual(Object.keys(kit.scenario.files).sort());
    expect(byPath.has(SCENARIO_PATHS.baseOnly)).toBe(false);
    for (const expected of Object.values(kit.scenario.files)) {
      const file = byPath.get(expected.path)!;
      expect(file.status, expected.path).toBe(expected.status);
      expect(file.previousPath, expected.path).toBe(expected.previousPath);
      expect(file.additions, expected.path).toBe(expected.added.length);
      expect(file.deletions, expected.path).toBe(expected.removed.length);
      expect(file.patch === undefined, expected.path).toBe(expected.binary);
      if (file.patch) {
        expect(file.patch.startsWith('@@ -')).toBe(true);
        expect(file.patch.endsWith('\n')).toBe(false);
      }
    }
    const diffs = toFileDiffs(files);
    expect(diffs.find((d) => d.path === SCENARIO_PATHS.binary)?.binary).toBe(true);
    const index = DiffIndex.fromFiles(diffs);
    for (const expected of Object.values(kit.scenario.files)) {
      for (const line of expected.added)
        expect(index.isRangeOnDiff(expected.path, 'RIGHT', line, line)).toBe(true);
      for (const line of expected.removed)
        expect(index.isRangeOnDiff(expected.path, 'LEFT', line, line)).toBe(true);
      for (const { left, right } of expected.context) {
        expect(index.isRangeOnDiff(expected.path, 'LEFT', left, left)).toBe(true);
        expect(index.isRangeOnDiff(expected.path, 'RIGHT', right, right)).toBe(true);
      }
      expect(index.hunkOf(expected.path, 'RIGHT', expected.invalidLine)).toBeUndefined();
    }
  });

  it('reads every page of the diffs endpoint', async () => {
    const many = createManyFilesScenario(path.join(kit.root, 'many'), 'acme/many', 130);
    await kit.fake.addMergeRequest({
      project: 'acme/platform/many',
      iid: 1,
      bareRepoPath: many.bareRepoPath,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'Many files',
    });
    const files = await kit.platform().listPullRequestFiles('acme/platform/many', 1);
    expect(files.map((f) => f.path)).toEqual(many.paths);
    const pages = kit.fake.requests.filter((r) => r.path.endsWith('/merge_requests/1/diffs'));
    expect(pages.map((r) => r.query.page ?? '1')).toEqual(['1', '2']);
  });

  it('reports a diff GitLab withheld as too large, not as binary', async () => {
    await kit.fake.addMergeRequest({
      project: PROJECT,
      iid: 4,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'Withheld diff',
      tooLarge: [SCENARIO_PATHS.modified],
    });
    const files = await kit.platform().listPullRequestFiles(PROJECT, 4);
    const modified = files.find((f) => f.path === SCENARIO_PATHS.modified)!;
    expect(modified.patch).toBeUndefined();
    const diff = toFileDiffs([modified])[0]!;
    expect(diff.tooLarge).toBe(true);
    expect(diff.binary).toBe(false);
  });

  it('lists notes and diff notes, leaves out system notes and marks resolved threads', async () => {
    const seed = { project: PROJECT, iid: IID };
    kit.fake.addNote({ ...seed, author: 'alice', body: 'Looks good overall.' });
    kit.fake.addNote({ ...seed, author: 'alice', body: 'added 1 commit', system: true });
    const right = kit.fake.addNote({
      ...seed,
      author: 'bob',
      body: 'Name this constant.',
      position: { newPath: SCENARIO_PATHS.modified, newLine: 3 },
    });
    kit.fake.addNote({ ...seed, author: 'review-bot', body: 'Agreed.', discussionId: right.discussionId });
    kit.fake.addNote({
      ...seed,
      author: 'bob',
      body: 'Why remove this?',
      position: { newPath: SCENARIO_PATHS.modified, oldLine: 56 },
      resolved: true,
    });
    const comments = await kit.platform().listComments(PROJECT, IID);
    expect(comments.map((c) => c.body)).toEqual([
      'Looks good overall.',
      'Name this constant.',
      'Agreed.',
      'Why remove this?',
    ]);
    expect(comments[0]).toMatchObject({ kind: 'issue_comment', authorUsername: 'alice' });
    expect(comments[0]?.path).toBeUndefined();
    expect(comments[1]).toMatchObject({
      kind: 'review_comment',
      path: SCENARIO_PATHS.modified,
      line: 3,
      side: 'RIGHT',
    });
    expect(comments[1]?.resolved).toBeUndefined();
    expect(comments[2]).toMatchObject({ kind: 'review_comment', authorUsername: 'review-bot', line: 3 });
    expect(comments[3]).toMatchObject({
      path: SCENARIO_PATHS.modified,
      line: 56,
      side: 'LEFT',
      resolved: true,
    });
  });

  it('identifies the bot with GET /user once', async () => {
    const platform = kit.platform();
    expect(await platform.getBotUsernames()).toEqual(['review-bot']);
    expect(await platform.getBotUsernames()).toEqual(['review-bot']);
    expect(kit.fake.requests.filter((r) => r.path === '/api/v4/user')).toHaveLength(1);
  });

  it('gives git the oauth2 user and the token', async () => {
    expect(await kit.platform().getGitCredentials()).toEqual({ username: 'oauth2', password: TOKEN });
  });

  it('maps a rejected token to AuthError without the token in the message', async () => {
    const error = await kit
      .platform({ GITLAB_TOKEN: 'glpat-wrong-token-00000000' })
      .getPullRequest(PROJECT, IID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(
      /GitLab rejected the credentials .*401 Unauthorized.*GITLAB_TOKEN/,
    );
    expect((error as Error).message).not.toContain('glpat-wrong-token');
  });

  it('maps an unknown project to a 404 PlatformError with a hint', async () => {
    const error = await kit
      .platform()
      .getPullRequest('acme/platform/nope', 1)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 404 });
    expect((error as Error).message).toMatch(
      /404 Project Not Found \(not found, or the token cannot see it\)/,
    );
  });

  it('retries a GET answered 502 and then succeeds', async () => {
    kit.fake.failNext('GET', /\/merge_requests\/3$/, 502);
    const pr = await kit.platform().getPullRequest(PROJECT, IID);
    expect(pr.headSha).toBe(kit.scenario.headSha);
  });

  it('reports an unreachable instance as a PlatformError naming GITLAB_URL', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', () => listening()));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((done) => closed.close(() => done()));
    const error = await kit
      .platform({ GITLAB_URL: `http://127.0.0.1:${port}` })
      .getBotUsernames()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: undefined });
    expect((error as Error).message).toMatch(/unreachable.*ECONNREFUSED.*GITLAB_URL/);
  });

  it('reads a merge request from a fork', async () => {
    await kit.fake.addMergeRequest({
      project: PROJECT,
      iid: 5,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'From a fork',
      sourceProject: { path: 'bob/widgets', bareRepoPath: kit.scenario.bareRepoPath },
    });
    const pr = await kit.platform().getPullRequest(PROJECT, 5);
    expect(pr).toMatchObject({
      isFork: true,
      headRepoFullName: 'bob/widgets',
      headCloneUrl: `${kit.fake.url}/bob/widgets.git`,
      headSha: kit.scenario.headSha,
    });
  });
});
