/**
 * The fake GitLab refuses by role what GitLab refuses ("Roles and permissions"): below Developer,
 * resolving a thread (unless the token user wrote the merge request) and setting a commit status
 * answer 403; commenting works for a Reporter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiffScenario } from '../git-fixtures.js';
import { startFakeGitLab, type FakeGitLab, type GitLabRole } from './index.js';

const TOKEN = 'glpat-fake-roles-0000000000001';
const PROJECT = 'acme/widgets';
const ENCODED = encodeURIComponent(PROJECT);

let root: string | undefined;
let fake: FakeGitLab | undefined;
afterEach(async () => {
  await fake?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  fake = undefined;
  root = undefined;
});

/** A fake whose token user has `role`, one merge request by `author`, and one open bot thread on it. */
async function start(role: GitLabRole | undefined, author = 'alice') {
  root = mkdtempSync(path.join(os.tmpdir(), 'fake-gitlab-roles-'));
  const scenario = createDiffScenario(path.join(root, 'repos'), PROJECT);
  const gitlab = await startFakeGitLab({ token: TOKEN, ...(role ? { role } : {}) });
  fake = gitlab;
  await gitlab.addMergeRequest({
    project: PROJECT,
    iid: 1,
    bareRepoPath: scenario.bareRepoPath,
    sourceBranch: 'feature',
    targetBranch: 'main',
    title: 'Scenario',
    author,
  });
  const { discussionId } = gitlab.addNote({
    project: PROJECT,
    iid: 1,
    body: 'A finding.',
    author: 'reviewbot-bot',
    thread: true,
  });
  const api = (p: string, method: string, body: unknown) =>
    fetch(`${gitlab.url}/api/v4/projects/${ENCODED}/${p}`, {
      method,
      headers: { 'private-token': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const head = (await gitlab.diffRefs(PROJECT, 1)).head_sha;
  return {
    gitlab,
    resolve: () => api(`merge_requests/1/discussions/${discussionId}`, 'PUT', { resolved: true }),
    status: () => api(`statuses/${head}`, 'POST', { state: 'running', name: 'reviewbot' }),
    comment: () => api('merge_requests/1/notes', 'POST', { body: 'Summary.' }),
  };
}

describe('fake GitLab roles', () => {
  it.each(['guest', 'reporter'] as const)(
    'a %s may not resolve a thread nor set a commit status (a reporter may comment)',
    async (role) => {
      const { gitlab, resolve, status, comment } = await start(role);
      if (role === 'reporter') expect((await comment()).status).toBe(201);
      const refused = await resolve();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ message: '403 Forbidden' });
      expect(gitlab.discussions.find((d) => d.notes[0]?.body === 'A finding.')?.resolved).toBe(false);
      expect((await status()).status).toBe(403);
      expect(gitlab.statuses).toEqual([]);
      expect(gitlab.violations).toEqual([]);
    },
  );

  it.each([undefined, 'developer', 'maintainer', 'owner'] as const)(
    'role %s (default: developer) resolves threads and sets statuses',
    async (role) => {
      const { gitlab, resolve, status } = await start(role);
      expect((await resolve()).status).toBe(200);
      expect(gitlab.discussions.find((d) => d.notes[0]?.body === 'A finding.')?.resolved).toBe(true);
      expect((await status()).status).toBe(201);
    },
  );

  it("a reporter who wrote the merge request may resolve its threads (GitLab's author exception)", async () => {
    const { resolve } = await start('reporter', 'reviewbot-bot');
    expect((await resolve()).status).toBe(200);
  });
});
