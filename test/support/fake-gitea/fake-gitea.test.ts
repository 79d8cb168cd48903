/**
 * The fake Gitea itself: it refuses what Gitea refuses (no token, an operation Gitea does not have,
 * a parameter of the wrong type, an unknown body field, a COMMENT review with nothing in it, a
 * reaction outside Gitea's list) and serves git only with the token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiffScenario, runGitAsync } from '../git-fixtures.js';
import { startFakeGitea, type FakeGitea } from './index.js';

const TOKEN = 'fake-gitea-self-test-token';

describe('fake Gitea', () => {
  let root: string;
  let fake: FakeGitea;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-gitea-'));
    const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    fake = await startFakeGitea({ token: TOKEN, username: 'bot' });
    fake.addPullRequest({
      repo: 'acme/widgets',
      index: 1,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
      title: 'T',
    });
  });
  afterAll(async () => {
    await fake?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const api = (p: string, init: RequestInit = {}, token = TOKEN) =>
    fetch(`${fake.url}/api/v1${p}`, {
      ...init,
      headers: { authorization: `token ${token}`, 'content-type': 'application/json', ...init.headers },
    });
  const take = () => fake.violations.splice(0).map((v) => v.message);

  it('answers 401 without the token and 404 (a violation) for an operation Gitea does not have', async () => {
    expect((await api('/user', {}, 'nope')).status).toBe(401);
    expect((await api('/repos/acme/widgets/merge_requests/1')).status).toBe(404);
    expect(take()).toEqual(['no such operation in the Gitea API']);
  });

  it('checks parameters and bodies against the swagger', async () => {
    expect((await api('/repos/acme/widgets/pulls/x')).status).toBe(422);
    expect((await api('/repos/acme/widgets/pulls/1/files?limit=many')).status).toBe(422);
    const unknownField = await api('/repos/acme/widgets/issues/1/comments', {
      method: 'POST',
      body: JSON.stringify({ body: 'x', in_reply_to: 3 }),
    });
    expect(unknownField.status).toBe(422);
    expect(take()).toEqual([
      expect.stringMatching(/repoGetPullRequest: path\/index must be integer/),
      expect.stringMatching(/repoGetPullRequestFiles: query\/limit must be integer/),
      expect.stringMatching(/issueCreateComment: body must NOT have additional properties \(in_reply_to\)/),
    ]);
  });

  it('applies Gitea review and reaction rules', async () => {
    const empty = await api('/repos/acme/widgets/pulls/1/reviews', {
      method: 'POST',
      body: JSON.stringify({ event: 'COMMENT', body: ' ' }),
    });
    expect(empty.status).toBe(422);
    expect(((await empty.json()) as { message: string }).message).toMatch(/requires a body or a comment/);
    const pending = await api('/repos/acme/widgets/pulls/1/reviews', {
      method: 'POST',
      body: JSON.stringify({ event: 'COMMENTED', body: 'hi' }),
    });
    expect(pending.status).toBe(200);
    expect(fake.reviews.at(-1)?.state).toBe('PENDING');
    expect(take()).toEqual([expect.stringMatching(/leaves the review pending/)]);
    const comment = fake.addComment('acme/widgets', 1, 'alice', 'hello');
    const bad = await api(`/repos/acme/widgets/issues/comments/${comment.id}/reactions`, {
      method: 'POST',
      body: JSON.stringify({ content: 'thinking' }),
    });
    expect(bad.status).toBe(403);
    const eyes = () =>
      api(`/repos/acme/widgets/issues/comments/${comment.id}/reactions`, {
        method: 'POST',
        body: JSON.stringify({ content: 'eyes' }),
      });
    expect((await eyes()).status).toBe(201);
    expect((await eyes()).status).toBe(200);
    expect(take()).toEqual([]);
  });

  it('serves git over HTTP with the token as password only', async () => {
    const url = new URL(fake.gitUrl('acme/widgets'));
    url.username = 'bot';
    url.password = 'wrong';
    await expect(runGitAsync(root, ['ls-remote', url.toString()])).rejects.toThrow();
    url.password = TOKEN;
    expect(await runGitAsync(root, ['ls-remote', url.toString()])).toMatch(/refs\/heads\/feature/);
    expect(fake.gitRequests.some((r) => r.authorized && r.username === 'bot')).toBe(true);
  });
});
