/**
 * The fake Azure DevOps rejects what Azure DevOps rejects: requests without the PAT (401), an
 * api-version other than 7.1 (400), a thread whose lines are outside the iteration's changes, whose
 * `filePath` lacks the leading `/`, or whose `changeTrackingId` is another file's (400); and it
 * serves the resource locations `azure-devops-node-api` discovers its routes from.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewLines } from '../../e2e/cli-fixture.js';
import { createDiffScenario, type DiffScenario } from '../git-fixtures.js';
import { startFakeAzureDevOps, type FakeAzureDevOps } from './index.js';

const TOKEN = 'fake-ado-test-pat';
const AUTH = `Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`;
const JSON_71 = 'application/json;api-version=7.1';

describe('fake Azure DevOps', () => {
  let root: string;
  let scenario: DiffScenario;
  let ado: FakeAzureDevOps;
  const threads = () => `${ado.collectionUrl}/Fabrikam/_apis/git/repositories/widgets/pullRequests/7/threads`;
  const post = (body: unknown, accept = JSON_71, auth = AUTH) =>
    fetch(threads(), {
      method: 'POST',
      headers: { authorization: auth, accept, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-ado-test-'));
    scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
    ado = await startFakeAzureDevOps({ token: TOKEN });
    ado.addPullRequest({
      project: 'Fabrikam',
      repo: 'widgets',
      id: 7,
      bareRepoPath: scenario.bareRepoPath,
      headBranch: scenario.head,
      baseBranch: scenario.base,
    });
  });
  afterAll(async () => {
    await ado?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('serves the git area resource locations to OPTIONS', async () => {
    const res = await fetch(`${ado.collectionUrl}/_apis/git`, {
      method: 'OPTIONS',
      headers: { authorization: AUTH },
    });
    const body = (await res.json()) as { value: Array<{ resourceName: string; releasedVersion: string }> };
    expect(body.value.map((l) => l.resourceName)).toContain('threads');
    expect(body.value.every((l) => l.releasedVersion === '7.1')).toBe(true);
  });

  it('answers 401 without the PAT and 400 for another api-version', async () => {
    expect((await post({ comments: [] }, JSON_71, 'Basic eDp5')).status).toBe(401);
    expect((await post({ comments: [] }, 'application/json;api-version=7.2-preview.1')).status).toBe(400);
    expect(ado.violations.map((v) => v.message)).toEqual(['api-version 7.2-preview.1 instead of 7.1']);
  });

  it('refuses thread anchors outside the iteration changes', async () => {
    const lines = reviewLines(scenario);
    const at = (line: number) => ({ line, offset: 1 });
    const ok = {
      filePath: `/${lines.right.path}`,
      rightFileStart: at(lines.right.line),
      rightFileEnd: at(lines.right.line),
    };
    const comments = [{ parentCommentId: 0, content: 'x', commentType: 1 }];
    expect((await post({ comments, status: 1, threadContext: ok })).status).toBe(200);
    const off = { ...ok, rightFileStart: at(lines.offDiff.line), rightFileEnd: at(lines.offDiff.line) };
    expect((await post({ comments, threadContext: off })).status).toBe(400);
    expect((await post({ comments, threadContext: { ...ok, filePath: lines.right.path } })).status).toBe(400);
    const wrongId = {
      changeTrackingId: 999,
      iterationContext: { firstComparingIteration: 1, secondComparingIteration: 1 },
    };
    expect((await post({ comments, threadContext: ok, pullRequestThreadContext: wrongId })).status).toBe(400);
    expect(ado.threads('Fabrikam', 'widgets', 7)).toHaveLength(1);
  });
});
