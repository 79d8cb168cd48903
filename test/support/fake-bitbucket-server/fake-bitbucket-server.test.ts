/**
 * The fake Bitbucket Data Center rejects what Data Center rejects (checked against the OpenAPI
 * description and the REST reference's rules).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiffScenario, gitEnv, type DiffScenario } from '../git-fixtures.js';
import { startFakeBitbucketServer, type FakeBitbucketServer } from './index.js';

const TOKEN = 'bbs-fake-self-test-token';
const R = '/rest/api/1.0/projects/ACME/repos/widgets';
const run = promisify(execFile);

describe('fake Bitbucket Data Center', () => {
  let root: string;
  let scenario: DiffScenario;
  let bb: FakeBitbucketServer;
  const call = (method: string, p: string, body?: unknown, token = TOKEN) =>
    fetch(`${bb.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-bbs-self-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'ACME/widgets');
    bb = await startFakeBitbucketServer({ token: TOKEN, username: 'rb' });
    bb.addPullRequest({
      repo: 'ACME/widgets',
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

  it('answers 401 without the Bearer token, and names the user in X-AUSERNAME with it', async () => {
    const refused = await call('GET', '/rest/api/1.0/application-properties', undefined, 'wrong');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-ausername')).toBeNull();
    const ok = await call('GET', '/rest/api/1.0/application-properties');
    expect(ok.headers.get('x-ausername')).toBe('rb');
  });

  it('answers 400 to a body the OpenAPI description rejects, to an anchor off the diff, and to one in a moved file without srcPath', async () => {
    const comments = `${R}/pull-requests/1/comments`;
    const badType = await call('POST', comments, {
      text: 'x',
      anchor: { path: 'src/service.ts', line: 3, lineType: 'CHANGED', fileType: 'TO' },
    });
    expect(badType.status).toBe(400);
    const off = await call('POST', comments, {
      text: 'x',
      anchor: {
        path: 'src/service.ts',
        line: 9999,
        lineType: 'ADDED',
        fileType: 'TO',
        diffType: 'EFFECTIVE',
      },
    });
    expect(off.status).toBe(400);
    // A line of a moved file: Data Center needs its old path as srcPath.
    const moved = {
      path: 'lib/util.ts',
      line: 10,
      lineType: 'ADDED',
      fileType: 'TO',
      diffType: 'EFFECTIVE',
    };
    expect((await call('POST', comments, { text: 'x', anchor: moved })).status).toBe(400);
    const withSrc = await call('POST', comments, {
      text: 'x',
      anchor: { ...moved, srcPath: 'lib/util-old.ts' },
    });
    expect(withSrc.status).toBe(201);
    const build = await call('POST', `${R}/commits/${scenario.headSha}/builds`, {
      key: 'reviewbot',
      state: 'INPROGRESS',
    });
    expect(build.status).toBe(400);
    expect(bb.violations.map((v) => v.message).join('\n')).toMatch(
      /lineType[\s\S]*not a line of the diff[\s\S]*moved file lib\/util\.ts has srcPath undefined[\s\S]*url/,
    );
  });

  it('updates a comment only with its current version (409 otherwise); a reply needs an existing parent', async () => {
    const created = (await (
      await call('POST', `${R}/pull-requests/1/comments`, { text: 'hello' })
    ).json()) as {
      id: number;
      version: number;
    };
    const stale = await call('PUT', `${R}/pull-requests/1/comments/${created.id}`, {
      version: created.version + 1,
      threadResolved: true,
    });
    expect(stale.status).toBe(409);
    const fresh = await call('PUT', `${R}/pull-requests/1/comments/${created.id}`, {
      version: created.version,
      threadResolved: true,
    });
    expect(fresh.status).toBe(200);
    const orphan = await call('POST', `${R}/pull-requests/1/comments`, { text: 'r', parent: { id: 424242 } });
    expect(orphan.status).toBe(404);
  });

  it('pages with isLastPage/nextPageStart and serves git only with the Bearer token', async () => {
    const page = (await (await call('GET', `${R}/pull-requests/1/changes`)).json()) as {
      values: unknown[];
      isLastPage: boolean;
      nextPageStart?: number;
    };
    expect(page.values).toHaveLength(2);
    expect(page).toMatchObject({ isLastPage: false, nextPageStart: 2 });
    const url = `${bb.url}/scm/acme/widgets.git`;
    const env = { ...gitEnv(), GIT_TERMINAL_PROMPT: '0' };
    await expect(
      run('git', ['-c', `http.extraHeader=Authorization: Bearer ${TOKEN}`, 'ls-remote', url], { env }),
    ).resolves.toMatchObject({ stdout: expect.stringContaining('refs/heads/') });
    const basic = `http://x:${TOKEN}@${bb.url.slice('http://'.length)}/scm/acme/widgets.git`;
    await expect(run('git', ['ls-remote', basic], { env })).rejects.toThrow();
  });
});
