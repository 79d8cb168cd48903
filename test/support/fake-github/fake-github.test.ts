import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBranch, runGit, SCENARIO_PATHS } from '../git-fixtures.js';
import { octokitFor, startScenarioFake, statusOf, TOKEN, type ScenarioFake } from './test-kit.js';

const repo = { owner: 'acme', repo: 'widgets' };
const pr = { ...repo, pull_number: 1 };

/** `git diff` of one file with the headers GitHub strips removed. */
function gitPatch(bare: string, paths: string[]): string {
  const out = runGit(bare, ['diff', '-M', 'main...feature', '--', ...paths]).split('\n');
  return out
    .slice(out.findIndex((l) => l.startsWith('@@')))
    .join('\n')
    .replace(/\n$/, '');
}

describe('fake GitHub: authentication', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'ghp_wrong'],
  ])('answers 401 Bad credentials for %s', async (_label, auth) => {
    const res = await fetch(`${env.fake.url}/repos/acme/widgets/pulls/1`, {
      headers: auth ? { authorization: `token ${auth}` } : {},
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      message: 'Bad credentials',
      documentation_url: 'https://docs.github.com/rest',
      status: '401',
    });
  });

  it.each([`token ${TOKEN}`, `Bearer ${TOKEN}`, `bearer ${TOKEN}`])('accepts "%s"', async (header) => {
    const res = await fetch(`${env.fake.url}/user`, { headers: { authorization: header } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { login: string }).login).toBe('reviewbot-test');
  });

  it('never records the token', () => {
    expect(env.fake.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(env.fake.requests)).not.toContain(TOKEN);
    expect(env.fake.violations).toEqual([]);
  });
});

describe('fake GitHub: pull request and files', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it('serves the pull request in GitHub shape with the fake clone URL', async () => {
    const { data } = await env.octokit.rest.pulls.get(pr);
    expect(data.head).toMatchObject({ ref: 'feature', sha: env.scenario.headSha, label: 'acme:feature' });
    expect(data.base).toMatchObject({ ref: 'main', sha: env.scenario.baseSha });
    expect(data.head.repo.full_name).toBe('acme/widgets');
    expect(data.head.repo.clone_url).toBe(env.fake.gitUrl('acme', 'widgets'));
    expect(data).toMatchObject({ number: 1, state: 'open', title: 'Add the guide', merged: false });
    expect(data).toMatchObject({ changed_files: 6, additions: 11, deletions: 8, commits: 1 });
    expect(data.user.login).toBe('octocat');
    expect(env.fake.violations).toEqual([]);
  });

  it('lists the merge-base diff with GitHub statuses, without the base-only change', async () => {
    const files = await env.octokit.paginate(env.octokit.rest.pulls.listFiles, pr);
    const summary = Object.fromEntries(files.map((f) => [f.filename, [f.status, f.previous_filename]]));
    expect(summary).toEqual({
      [SCENARIO_PATHS.modified]: ['modified', undefined],
      [SCENARIO_PATHS.added]: ['added', undefined],
      [SCENARIO_PATHS.removed]: ['removed', undefined],
      [SCENARIO_PATHS.renamed]: ['renamed', SCENARIO_PATHS.renamedFrom],
      [SCENARIO_PATHS.binary]: ['modified', undefined],
      [SCENARIO_PATHS.noNewline]: ['modified', undefined],
    });
    const binary = files.find((f) => f.filename === SCENARIO_PATHS.binary);
    expect(binary).toMatchObject({ additions: 0, deletions: 0, changes: 0 });
    expect(binary?.patch).toBeUndefined();
  });

  it('formats each patch as GitHub does: hunks only, equal to git diff without headers', async () => {
    const files = await env.octokit.paginate(env.octokit.rest.pulls.listFiles, pr);
    const bare = env.scenario.bareRepoPath;
    for (const f of files.filter((x) => x.filename !== SCENARIO_PATHS.binary)) {
      const paths = f.previous_filename ? [f.previous_filename, f.filename] : [f.filename];
      expect(f.patch, f.filename).toBe(gitPatch(bare, paths));
      expect(f.patch?.startsWith('@@ ')).toBe(true);
      expect(f.patch?.endsWith('\n')).toBe(false);
      const expected = env.scenario.files[f.filename];
      const headers = (f.patch ?? '').split('\n').filter((l) => l.startsWith('@@'));
      expect(headers.map((h) => h.replace(/ @@.*$/, ' @@'))).toEqual(
        expected?.hunks.map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`),
      );
      expect(f.additions).toBe(expected?.added.length);
      expect(f.deletions).toBe(expected?.removed.length);
    }
    const noNewline = files.find((f) => f.filename === SCENARIO_PATHS.noNewline);
    expect(noNewline?.patch).toBe(
      '@@ -1,3 +1,4 @@\n alpha\n beta\n-gamma\n\\ No newline at end of file\n+gamma\n+delta\n\\ No newline at end of file',
    );
  });

  it('serves the diff media type', async () => {
    const res = await fetch(`${env.fake.url}/repos/acme/widgets/pulls/1`, {
      headers: { authorization: `token ${TOKEN}`, accept: 'application/vnd.github.diff' },
    });
    const text = await res.text();
    expect(text).toContain('diff --git a/src/service.ts b/src/service.ts');
    expect(text).not.toContain('README.md');
  });

  it('follows a new push to the head branch', async () => {
    const sha = commitToBranch(env.scenario.bareRepoPath, {
      branch: 'feature',
      message: 'more',
      changes: { write: { 'docs/extra.md': 'extra\n' } },
    });
    const { data } = await env.octokit.rest.pulls.get(pr);
    expect(data.head.sha).toBe(sha);
    const files = await env.octokit.paginate(env.octokit.rest.pulls.listFiles, pr);
    expect(files.map((f) => f.filename)).toContain('docs/extra.md');
  });

  it('answers 404 for an unknown pull request', async () => {
    expect((await statusOf(env.octokit.rest.pulls.get({ ...repo, pull_number: 99 }))).status).toBe(404);
    expect(env.fake.violations).toEqual([]);
  });
});

describe('fake GitHub: comments, replies and reactions', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it('lists seeded comments and stores posted ones with the acting user', async () => {
    env.fake.addIssueComment({ ...repo, number: 1, body: '@reviewbot please look', user: 'alice' });
    const seeded = await env.fake.addReviewComment({
      ...repo,
      number: 1,
      body: 'why 300?',
      user: 'alice',
      path: SCENARIO_PATHS.modified,
      line: 3,
    });
    env.fake.addReview({ ...repo, number: 1, body: 'Looks risky', user: 'bob' });

    const issue = await env.octokit.paginate(env.octokit.rest.issues.listComments, {
      ...repo,
      issue_number: 1,
    });
    expect(issue.map((c) => [c.user?.login, c.body])).toEqual([['alice', '@reviewbot please look']]);
    const inline = await env.octokit.paginate(env.octokit.rest.pulls.listReviewComments, pr);
    expect(inline).toHaveLength(1);
    expect(inline[0]).toMatchObject({
      path: SCENARIO_PATHS.modified,
      line: 3,
      side: 'RIGHT',
      body: 'why 300?',
    });
    expect(inline[0]?.diff_hunk).toBe(
      '@@ -1,6 +1,6 @@\n export const v1 = 1;\n export const v2 = 2;\n-export const v3 = 3;\n+export const v3 = 300;',
    );

    const posted = await env.octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'On it.' });
    expect(posted.status).toBe(201);
    const reply = await env.octokit.rest.pulls.createReplyForReviewComment({
      ...pr,
      comment_id: seeded.id,
      body: 'Because.',
    });
    expect(reply.data).toMatchObject({ in_reply_to_id: seeded.id, path: SCENARIO_PATHS.modified, line: 3 });
    expect(env.fake.issueComments.map((c) => c.user?.login)).toEqual(['alice', 'reviewbot-test']);
    expect(env.fake.reviewComments.map((c) => c.body)).toEqual(['why 300?', 'Because.']);
    expect(env.fake.violations).toEqual([]);
  });

  it('adds an eyes reaction once per user (201, then 200)', async () => {
    const comment = env.fake.issueComments[0];
    const inline = env.fake.reviewComments[0];
    if (!comment || !inline) throw new Error('seed missing');
    const first = await env.octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes',
    });
    const again = await env.octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes',
    });
    await env.octokit.rest.reactions.createForPullRequestReviewComment({
      ...repo,
      comment_id: inline.id,
      content: 'eyes',
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(env.fake.reactions.map((r) => [r.subject_type, r.subject_id, r.content, r.user?.login])).toEqual([
      ['issue_comment', comment.id, 'eyes', 'reviewbot-test'],
      ['review_comment', inline.id, 'eyes', 'reviewbot-test'],
    ]);
    const missing = await statusOf(
      env.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: 1, content: 'eyes' }),
    );
    expect(missing.status).toBe(404);
  });

  it('lists the reactions on a comment, seeded ones too (404 for an unknown comment)', async () => {
    const inline = env.fake.reviewComments[0];
    if (!inline) throw new Error('seed missing');
    env.fake.addReaction({ subject: 'review_comment', commentId: inline.id, content: '-1', user: 'alice' });
    const listed = await env.octokit.rest.reactions.listForPullRequestReviewComment({
      ...repo,
      comment_id: inline.id,
    });
    expect(listed.data.map((r) => [r.content, r.user?.login])).toEqual([
      ['eyes', 'reviewbot-test'],
      ['-1', 'alice'],
    ]);
    const missing = await statusOf(
      env.octokit.rest.reactions.listForIssueComment({ ...repo, comment_id: 1 }),
    );
    expect(missing.status).toBe(404);
    expect(env.fake.violations).toEqual([]);
  });

  it('refuses a blank comment body with 422 and stores nothing', async () => {
    const before = env.fake.issueComments.length;
    const res = await statusOf(
      env.octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: '  ' }),
    );
    expect(res.status).toBe(422);
    expect(env.fake.issueComments).toHaveLength(before);
  });
});

describe('fake GitHub: test hooks', () => {
  let env: ScenarioFake;
  beforeAll(async () => {
    env = await startScenarioFake();
  });
  afterAll(() => env.close());

  it('injects a fault once, then answers normally', async () => {
    env.fake.failNext('GET', /\/pulls\/1$/, 500);
    expect((await statusOf(env.octokit.rest.pulls.get(pr))).status).toBe(500);
    expect((await env.octokit.rest.pulls.get(pr)).status).toBe(200);
  });

  it('delays matching requests only', async () => {
    // Order, not wall time, tells an undelayed request (a loaded machine slows every request): the
    // delayed one starts first and still ends after the other, however long the other takes.
    env.fake.setLatency(2000, /\/files/);
    const done: string[] = [];
    const started = Date.now();
    const delayed = env.octokit.rest.pulls.listFiles(pr).then(() => {
      done.push('files');
      return Date.now() - started;
    });
    await env.octokit.rest.pulls.get(pr);
    done.push('pull');
    // A delay is a lower bound whatever the load.
    expect(await delayed).toBeGreaterThanOrEqual(1990);
    expect(done).toEqual(['pull', 'files']);
    env.fake.setLatency(0);
  });

  it('tells read requests from write requests', async () => {
    expect(env.fake.writeRequests()).toEqual([]);
    await env.octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: 'hi' });
    expect(env.fake.writeRequests().map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/repos/acme/widgets/issues/1/comments', { body: 'hi' }],
    ]);
  });

  it('rejects a client that sends no token at all', async () => {
    const anonymous = octokitFor(env.fake, null);
    expect((await statusOf(anonymous.rest.pulls.get(pr))).status).toBe(401);
  });
});
