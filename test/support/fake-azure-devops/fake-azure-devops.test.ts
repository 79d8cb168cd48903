/**
 * The fake Azure DevOps rejects what Azure DevOps rejects: requests without the PAT (401), an
 * api-version other than 7.1 (400), a thread whose lines are outside the iteration's changes, whose
 * `filePath` lacks the leading `/`, whose `changeTrackingId` is another file's, or whose
 * `iterationContext` the service would not place its lines in (400, Azure's error body); it serves
 * the resource locations `azure-devops-node-api` discovers its routes from.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewLines } from '../../e2e/cli-fixture.js';
import { commitToBranch, createDiffScenario, type DiffScenario } from '../git-fixtures.js';
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

  describe('after a second push (two iterations)', () => {
    let second: DiffScenario;
    const threadsOf9 = () =>
      `${ado.collectionUrl}/Fabrikam/_apis/git/repositories/gadgets/pullRequests/9/threads`;
    const left = () => {
      const lines = reviewLines(second);
      return {
        filePath: `/${lines.left.path}`,
        leftFileStart: { line: lines.left.line, offset: 1 },
        leftFileEnd: { line: lines.left.line, offset: 1 },
      };
    };
    const postAt = (firstComparingIteration: number, secondComparingIteration: number) =>
      fetch(threadsOf9(), {
        method: 'POST',
        headers: { authorization: AUTH, accept: JSON_71, 'content-type': 'application/json' },
        body: JSON.stringify({
          comments: [{ parentCommentId: 0, content: 'Removed on purpose?', commentType: 1 }],
          status: 1,
          threadContext: left(),
          pullRequestThreadContext: {
            iterationContext: { firstComparingIteration, secondComparingIteration },
          },
        }),
      });

    beforeAll(async () => {
      second = createDiffScenario(path.join(root, 'repos-2'), 'acme/gadgets');
      ado.addPullRequest({
        project: 'Fabrikam',
        repo: 'gadgets',
        id: 9,
        bareRepoPath: second.bareRepoPath,
        headBranch: second.head,
        baseBranch: second.base,
      });
      await ado.pullRequestJson('Fabrikam', 'gadgets', 9); // iteration 1
      commitToBranch(second.bareRepoPath, {
        branch: second.head,
        message: 'Add notes',
        changes: { write: { 'docs/notes.md': 'Notes.\n' } },
      });
      await ado.pullRequestJson('Fabrikam', 'gadgets', 9); // iteration 2
    });

    it('places a removed line compared latest with latest (left side = merge base)', async () => {
      const res = await postAt(2, 2);
      expect(res.status).toBe(200);
      expect(ado.threads('Fabrikam', 'gadgets', 9).map((t) => t.threadContext)).toEqual([left()]);
    });

    it("refuses it compared 1 → latest: the left side is then iteration 1's head, where the line is unchanged", async () => {
      const res = await postAt(1, 2);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        $id: '1',
        innerException: null,
        message: expect.stringMatching(/not in the changes from iteration 1 to 2/),
        typeKey: 'InvalidArgumentValueException',
        errorCode: 0,
      });
    });

    it.each([
      [0, 2],
      [1, 3],
      [3, 3],
      [2, 1],
    ])('refuses iterationContext %i → %i (outside 1..2, or first after second)', async (a, b) => {
      const res = await postAt(a, b);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^iterationContext: /);
    });

    it('stores none of the refused threads', () => {
      expect(ado.threads('Fabrikam', 'gadgets', 9)).toHaveLength(1);
    });
  });
});
