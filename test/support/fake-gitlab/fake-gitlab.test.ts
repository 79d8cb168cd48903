/**
 * Self-tests of the fake GitLab at the wire level (raw fetch, gitbeaker's own requester, git over
 * HTTP): authentication, URL-encoded nested project ids, pagination headers, and the 400s GitLab
 * gives for diff positions that do not match the diff.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MergeRequestDiscussions } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitToBranch,
  createDiffScenario,
  runGitAsync,
  SCENARIO_PATHS,
  type DiffScenario,
} from '../git-fixtures.js';
import { startFakeGitLab, type FakeGitLab } from './index.js';

const TOKEN = 'glpat-fake-selftest-000000000001';
const PROJECT = 'acme/platform/widgets';
const ENCODED = encodeURIComponent(PROJECT);
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

describe('fake GitLab', () => {
  let root: string;
  let fake: FakeGitLab;
  let scenario: DiffScenario;
  let api: (path: string, init?: RequestInit) => Promise<Response>;
  let refs: { base_sha: string; start_sha: string; head_sha: string };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-gitlab-test-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    fake = await startFakeGitLab({ token: TOKEN });
    await fake.addMergeRequest({
      project: PROJECT,
      iid: 1,
      bareRepoPath: scenario.bareRepoPath,
      sourceBranch: 'feature',
      targetBranch: 'main',
      title: 'Scenario',
    });
    refs = await fake.diffRefs(PROJECT, 1);
    api = (p, init = {}) =>
      fetch(`${fake.url}/api/v4/${p}`, {
        ...init,
        headers: { 'private-token': TOKEN, 'content-type': 'application/json', ...init.headers },
      });
  });
  afterAll(async () => {
    await fake?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { 'private-token': 'glpat-wrong' }],
    ['a wrong bearer token', { authorization: 'Bearer glpat-wrong' }],
  ])('answers 401 like GitLab to %s', async (_name, headers) => {
    const response = await fetch(`${fake.url}/api/v4/user`, { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: '401 Unauthorized' });
  });

  it("moves a commit status through GitLab's states and refuses what GitLab refuses", async () => {
    const post = (body: Record<string, unknown>, sha = refs.head_sha) =>
      api(`projects/${ENCODED}/statuses/${sha}`, { method: 'POST', body: JSON.stringify(body) });
    const running = await post({ state: 'running', name: 'reviewbot', description: 'working' });
    expect(running.status).toBe(201);
    expect(await running.json()).toMatchObject({ status: 'running', name: 'reviewbot', sha: refs.head_sha });
    // GitLab's state machine: running again is no transition.
    const again = await post({ state: 'running', name: 'reviewbot' });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ message: 'Cannot transition status via :run from :running' });
    expect((await post({ state: 'success', name: 'reviewbot' })).status).toBe(201);
    // Finished: the next job's status is a new one.
    expect((await post({ state: 'running', name: 'reviewbot' })).status).toBe(201);
    expect(fake.statuses.map((x) => x.status)).toEqual(['success', 'running']);
    expect((await post({ state: 'done', name: 'reviewbot' })).status).toBe(400);
    expect((await post({ name: 'reviewbot' })).status).toBe(400);
    expect((await post({ state: 'failed', name: 'reviewbot', description: 'x'.repeat(256) })).status).toBe(
      400,
    );
    expect((await post({ state: 'failed', name: 'reviewbot' }, 'f'.repeat(40))).status).toBe(404);
    expect((await post({ state: 'failed', name: 'reviewbot', description: 'x'.repeat(255) })).status).toBe(
      201,
    );
  });

  it('accepts the token as PRIVATE-TOKEN or as a bearer token, and never records it', async () => {
    expect((await api('user')).status).toBe(200);
    const bearer = await fetch(`${fake.url}/api/v4/user`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await bearer.json()).toMatchObject({ username: 'reviewbot-bot' });
    expect(JSON.stringify(fake.requests)).not.toContain(TOKEN);
  });

  it('finds a nested project by its URL-encoded path or id, and not by an unencoded path', async () => {
    const byPath = (await (await api(`projects/${ENCODED}`)).json()) as {
      id: number;
      http_url_to_repo: string;
    };
    expect(byPath.http_url_to_repo).toBe(`${fake.url}/${PROJECT}.git`);
    expect((await api(`projects/${byPath.id}/merge_requests/1`)).status).toBe(200);
    const unencoded = await api(`projects/${PROJECT}/merge_requests/1`);
    expect(unencoded.status).toBe(404);
    expect(fake.violations).toEqual([
      expect.objectContaining({ message: 'no such route in the fake GitLab' }),
    ]);
    fake.violations.length = 0;
  });

  it('pages lists with x-* headers and a Link header', async () => {
    for (let i = 0; i < 25; i++)
      fake.addNote({ project: PROJECT, iid: 1, author: 'alice', body: `note ${i}` });
    const first = await api(`projects/${ENCODED}/merge_requests/1/discussions?per_page=10`);
    expect((await first.json()) as unknown[]).toHaveLength(10);
    expect(first.headers.get('x-total')).toBe('25');
    expect(first.headers.get('x-total-pages')).toBe('3');
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('link')).toMatch(
      /<http:\/\/127\.0\.0\.1:\d+\/api\/v4\/projects\/acme%2Fplatform%2Fwidgets\/merge_requests\/1\/discussions\?per_page=10&page=2>; rel="next"/,
    );
    const last = await api(`projects/${ENCODED}/merge_requests/1/discussions?per_page=10&page=3`);
    expect((await last.json()) as unknown[]).toHaveLength(5);
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('link')).not.toContain('rel="next"');
  });

  describe('diff discussion positions', () => {
    const m = SCENARIO_PATHS.modified;
    const added = (over: Record<string, unknown> = {}) => ({
      position_type: 'text',
      ...refs,
      old_path: m,
      new_path: m,
      new_line: 3,
      ...over,
    });
    const post = (position: Record<string, unknown>) =>
      api(`projects/${ENCODED}/merge_requests/1/discussions`, {
        method: 'POST',
        body: JSON.stringify({ body: 'inline', position }),
      });
    const range = (start: Record<string, unknown>, end: Record<string, unknown>) =>
      added({ new_line: 59, line_range: { start, end } });
    const goodStart = { line_code: `${sha1(m)}_57_56`, type: 'old' };
    const goodEnd = { line_code: `${sha1(m)}_59_59`, type: 'new' };

    it.each([
      ['an added line by new_line', () => added()],
      ['a removed line by old_line', () => added({ new_line: undefined, old_line: 56 })],
      ['an unchanged line by both', () => added({ new_line: 56, old_line: 57 })],
      ['a range with line codes', () => range(goodStart, goodEnd)],
    ])('accepts %s', async (_name, position) => {
      const response = await post(position());
      expect(response.status).toBe(201);
      const discussion = (await response.json()) as { notes: Array<{ type: string; position: unknown }> };
      expect(discussion.notes[0]).toMatchObject({ type: 'DiffNote', position: { head_sha: refs.head_sha } });
    });

    it.each([
      ['a wrong head_sha', () => added({ head_sha: 'f'.repeat(40) }), /match no diff version/],
      [
        'an unchanged line by new_line only',
        () => added({ new_line: 56 }),
        /old_line nil \/ new_line 56 identify no line/,
      ],
      [
        'an unchanged line by old_line only',
        () => added({ new_line: undefined, old_line: 57 }),
        /old_line 57 \/ new_line nil/,
      ],
      [
        'an added line with an old_line',
        () => added({ old_line: 3 }),
        /old_line 3 \/ new_line 3 identify no line/,
      ],
      ['a line not in the diff', () => added({ new_line: 30 }), /new_line 30 identify no line/],
      [
        'a file not in the diff',
        () => added({ old_path: 'README.md', new_path: 'README.md' }),
        /no file README.md/,
      ],
      [
        'a range without line_code',
        () => range({ type: 'old' }, goodEnd),
        /line_range.start.line_code is missing/,
      ],
      [
        'a range with a malformed line_code',
        () => range({ line_code: '57_56', type: 'old' }, goodEnd),
        /is not <sha1>_<old>_<new>/,
      ],
      [
        "a range with another file's line_code",
        () => range({ ...goodStart, line_code: `${sha1('x')}_57_56` }, goodEnd),
        /line_code is not for/,
      ],
      [
        'a range with the wrong type',
        () => range({ ...goodStart, type: 'new' }, goodEnd),
        /type is new, expected old/,
      ],
      [
        'a range ending elsewhere',
        () => range(goodStart, { line_code: `${sha1(m)}_59_58`, type: 'new' }),
        /end is not the position's line/,
      ],
    ])('refuses %s with 400', async (_name, position, reason) => {
      const response = await post(position());
      expect(response.status).toBe(400);
      const body = (await response.json()) as { message: string; fake_reason: string };
      expect(body.message).toBe(
        `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`,
      );
      expect(body.fake_reason).toMatch(reason);
    });

    it('refuses a position without base_sha like Grape does', async () => {
      const response = await post(added({ base_sha: undefined }));
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'position[base_sha] is missing' });
    });

    it("parses gitbeaker's multipart form encoding of a position", async () => {
      const discussions = new MergeRequestDiscussions({ host: fake.url, token: TOKEN });
      const created = await discussions.create(PROJECT, 1, 'from gitbeaker', {
        position: {
          positionType: 'text',
          baseSha: refs.base_sha,
          startSha: refs.start_sha,
          headSha: refs.head_sha,
          oldPath: m,
          newPath: m,
          oldLine: '57',
          newLine: '56',
        },
      });
      expect(created.notes?.[0]?.position).toMatchObject({ old_line: 57, new_line: 56, line_range: null });
      expect(fake.requests.at(-1)?.headers['content-type']).toMatch(/^multipart\/form-data/);
    });
  });

  it('refuses a repeated award emoji and an award on a note of another merge request', async () => {
    const { noteId } = fake.addNote({ project: PROJECT, iid: 1, author: 'alice', body: 'hi' });
    const award = (iid: number) =>
      api(`projects/${ENCODED}/merge_requests/${iid}/notes/${noteId}/award_emoji`, {
        method: 'POST',
        body: JSON.stringify({ name: 'eyes' }),
      });
    expect((await award(1)).status).toBe(201);
    const again = await award(1);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ message: '404 Award Emoji Name has already been taken Not Found' });
    expect((await award(99)).status).toBe(404);
    expect(fake.awards).toHaveLength(1);
  });

  it('lists the award emoji of a note, seeded ones too', async () => {
    const { noteId } = fake.addNote({ project: PROJECT, iid: 1, author: 'alice', body: 'listed' });
    fake.awardEmoji(noteId, 'thumbsdown', 'bob');
    const res = await api(`projects/${ENCODED}/merge_requests/1/notes/${noteId}/award_emoji`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { name: string; user: { username: string } }[];
    expect(body.map((a) => [a.name, a.user.username])).toEqual([['thumbsdown', 'bob']]);
    expect((await api(`projects/${ENCODED}/merge_requests/1/notes/999999/award_emoji`)).status).toBe(404);
  });

  it('serves the project over git HTTP to oauth2 + token only', async () => {
    const url = new URL(fake.gitUrl(PROJECT));
    url.username = 'oauth2';
    url.password = TOKEN;
    const dest = path.join(root, 'clone');
    await runGitAsync(root, ['clone', '--quiet', '--branch', 'feature', url.toString(), dest]);
    expect(readFileSync(path.join(dest, SCENARIO_PATHS.added), 'utf8')).toContain('Guide line 1.');
    url.password = 'wrong';
    await expect(
      runGitAsync(root, ['clone', '--quiet', url.toString(), path.join(root, 'denied')]),
    ).rejects.toThrow();
    expect(fake.gitRequests.some((r) => !r.authorized)).toBe(true);
  });

  it('makes a new diff version per push and serves each version with its diffs', async () => {
    commitToBranch(scenario.bareRepoPath, {
      branch: 'feature',
      message: 'second push',
      changes: { write: { 'NEW.md': 'new\n' } },
    });
    const versions = (await (await api(`projects/${ENCODED}/merge_requests/1/versions`)).json()) as Array<{
      id: number;
      head_commit_sha: string;
    }>;
    expect(versions).toHaveLength(2);
    expect(versions[1]?.head_commit_sha).toBe(scenario.headSha);
    const old = (await (
      await api(`projects/${ENCODED}/merge_requests/1/versions/${versions[1]?.id}`)
    ).json()) as {
      diffs: Array<{ new_path: string }>;
    };
    expect(old.diffs.map((d) => d.new_path)).not.toContain('NEW.md');
    const diffs = (await (await api(`projects/${ENCODED}/merge_requests/1/diffs`)).json()) as Array<{
      new_path: string;
    }>;
    expect(diffs.map((d) => d.new_path)).toContain('NEW.md');
  });

  it('builds Note Hook payloads consistent with its API', async () => {
    const seeded = fake.addNote({
      project: PROJECT,
      iid: 1,
      author: 'alice',
      body: '@bot check',
      position: { newPath: SCENARIO_PATHS.modified, newLine: 3 },
    });
    const hook = (await fake.noteHook(seeded.noteId)) as {
      object_attributes: Record<string, unknown>;
      project: { path_with_namespace: string; git_http_url: string };
      merge_request: { iid: number; last_commit: { id: string } };
    };
    expect(hook.object_attributes).toMatchObject({
      id: seeded.noteId,
      type: 'DiffNote',
      discussion_id: seeded.discussionId,
      noteable_type: 'MergeRequest',
      action: 'create',
      line_code: `${sha1(SCENARIO_PATHS.modified)}_4_3`,
    });
    expect(hook.project).toMatchObject({
      path_with_namespace: PROJECT,
      git_http_url: `${fake.url}/${PROJECT}.git`,
    });
    expect(hook.merge_request.iid).toBe(1);
    expect(fake.violations).toEqual([]);
  });
});
