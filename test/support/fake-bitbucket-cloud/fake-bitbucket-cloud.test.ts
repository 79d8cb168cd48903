/** The fake Bitbucket Cloud rejects what Bitbucket rejects (checked against the OpenAPI description). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiffScenario } from '../git-fixtures.js';
import { startFakeBitbucketCloud, type FakeBitbucketCloud } from './index.js';

const TOKEN = 'bb-fake-self-test-token';

describe('fake Bitbucket Cloud', () => {
  let root: string;
  let bb: FakeBitbucketCloud;
  let headSha: string;
  const post = (p: string, body: unknown, token = TOKEN) =>
    fetch(`${bb.apiUrl}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-bb-self-'));
    const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    headSha = scenario.headSha;
    bb = await startFakeBitbucketCloud({ token: TOKEN });
    bb.addPullRequest({
      repo: 'acme/widgets',
      id: 1,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
  });
  afterAll(async () => {
    await bb?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('answers 401 without the Bearer token', async () => {
    expect((await fetch(`${bb.apiUrl}/user`)).status).toBe(401);
  });

  it('answers 400 to a body the OpenAPI description rejects (unknown inline key, missing type)', async () => {
    const comments = '/repositories/acme/widgets/pullrequests/1/comments';
    const unknownKey = await post(comments, {
      type: 'pullrequest_comment',
      content: { raw: 'x' },
      inline: { path: 'a', line: 3 },
    });
    expect(unknownKey.status).toBe(400);
    expect((await post(comments, { content: { raw: 'x' } })).status).toBe(400);
    expect(bb.violations.map((v) => v.message).join('\n')).toMatch(/additional properties[\s\S]*type/);
  });

  it('rejects an inline comment off the diff, and a build status without url', async () => {
    const off = await post('/repositories/acme/widgets/pullrequests/1/comments', {
      type: 'pullrequest_comment',
      content: { raw: 'x' },
      inline: { path: 'src/service.ts', to: 9999 },
    });
    expect(off.status).toBe(400);
    const status = await post(`/repositories/acme/widgets/commit/${headSha}/statuses/build`, {
      type: 'commitstatus',
      key: 'reviewbot',
      state: 'INPROGRESS',
    });
    expect(status.status).toBe(400);
    const badState = await post(`/repositories/acme/widgets/commit/${headSha}/statuses/build`, {
      type: 'commitstatus',
      key: 'reviewbot',
      state: 'PENDING',
      url: 'https://bitbucket.org/acme/widgets/pull-requests/1',
    });
    expect(badState.status).toBe(400);
  });

  it('reports pull request hashes with 12 characters and pages lists with next links', async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const pr = (await (
      await fetch(`${bb.apiUrl}/repositories/acme/widgets/pullrequests/1`, { headers })
    ).json()) as {
      source: { commit: { hash: string } };
    };
    expect(pr.source.commit.hash).toBe(headSha.slice(0, 12));
    const page = (await (
      await fetch(`${bb.apiUrl}/repositories/acme/widgets/pullrequests/1/diffstat`, { headers })
    ).json()) as { values: unknown[]; next?: string };
    expect(page.values).toHaveLength(2);
    expect(page.next).toContain('page=2');
  });
});
