/**
 * The fake Azure DevOps refuses (400, and records a violation) the write bodies Azure DevOps REST
 * 7.1 refuses: a thread without comments, enum values outside CommentThreadStatus, CommentType and
 * GitStatusState, a reply without content, a status without a context name. Valid bodies — enums by
 * number or by name, as `azure-devops-node-api` and the web UI send them — pass and record nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiffScenario } from '../git-fixtures.js';
import { startFakeAzureDevOps, type FakeAzureDevOps } from './index.js';
import { isEnumValue } from './validate.js';
import { THREAD_STATUS } from './protocol.js';

const TOKEN = 'fake-ado-validation-pat';
const HEADERS = {
  authorization: `Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`,
  accept: 'application/json;api-version=7.1',
  'content-type': 'application/json',
};
const COMMENT = { parentCommentId: 0, content: 'Looks fine.', commentType: 1 };

describe('fake Azure DevOps request validation', () => {
  let root: string;
  let ado: FakeAzureDevOps;
  const base = () => `${ado.collectionUrl}/Fabrikam/_apis/git/repositories/widgets/pullRequests/7`;
  const send = (method: string, sub: string, body: unknown) =>
    fetch(`${base()}/${sub}`, { method, headers: HEADERS, body: JSON.stringify(body) });
  let seen = 0;
  /** The violations recorded since the test began. */
  const fresh = () => ado.violations.slice(seen).map((v) => v.message);

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fake-ado-validation-'));
    const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
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
  beforeEach(() => {
    seen = ado.violations.length;
  });
  afterAll(async () => {
    await ado?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.each([
    ['an empty body', {}, 'a thread needs at least one comment'],
    ['no comments', { comments: [], status: 1 }, 'a thread needs at least one comment'],
    ['a comment without content', { comments: [{ parentCommentId: 0 }] }, 'comments[0].content is required'],
    ['a blank comment', { comments: [{ content: '  ' }] }, 'comments[0].content is required'],
    [
      'comment type 9',
      { comments: [{ ...COMMENT, commentType: 9 }] },
      'comments[0].commentType 9 is not a CommentType',
    ],
    [
      'a negative parent',
      { comments: [{ ...COMMENT, parentCommentId: -1 }] },
      'comments[0].parentCommentId is not a comment id',
    ],
    ['thread status 99', { comments: [COMMENT], status: 99 }, 'status 99 is not a CommentThreadStatus'],
    [
      'thread status "banana"',
      { comments: [COMMENT], status: 'banana' },
      'status "banana" is not a CommentThreadStatus',
    ],
    [
      'a file path without /',
      { comments: [COMMENT], threadContext: { filePath: 'a.ts' } },
      'threadContext.filePath must start with /',
    ],
    [
      'a position at line 0',
      { comments: [COMMENT], threadContext: { filePath: '/a.ts', rightFileStart: { line: 0, offset: 1 } } },
      'threadContext.rightFileStart needs a line and an offset of at least 1',
    ],
  ])('refuses a new thread with %s', async (_name, body, message) => {
    const before = ado.threads('Fabrikam', 'widgets', 7).length;
    const res = await send('POST', 'threads', body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message, typeKey: 'InvalidArgumentValueException' });
    expect(fresh()).toEqual([message]);
    expect(ado.threads('Fabrikam', 'widgets', 7)).toHaveLength(before);
  });

  it('accepts a thread, a reply and a status update with enums by number or by name', async () => {
    const created = await send('POST', 'threads', { comments: [COMMENT], status: 'active' });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: number };
    expect(
      (
        await send('POST', `threads/${id}/comments`, {
          parentCommentId: 1,
          content: 'Reply',
          commentType: 'text',
        })
      ).status,
    ).toBe(200);
    expect((await send('PATCH', `threads/${id}`, { status: 2 })).status).toBe(200);
    expect((await send('PATCH', `threads/${id}`, { status: 'Closed' })).status).toBe(200);
    expect(ado.threads('Fabrikam', 'widgets', 7).find((t) => t.id === id)?.status).toBe('closed');
    expect(fresh()).toEqual([]);
  });

  it('refuses a thread update with status 99 or "banana", an empty update and a reply without content', async () => {
    const { id } = (await (await send('POST', 'threads', { comments: [COMMENT] })).json()) as { id: number };
    expect((await send('PATCH', `threads/${id}`, { status: 99 })).status).toBe(400);
    expect((await send('PATCH', `threads/${id}`, { status: 'banana' })).status).toBe(400);
    expect((await send('PATCH', `threads/${id}`, {})).status).toBe(400);
    expect((await send('POST', `threads/${id}/comments`, { parentCommentId: 1 })).status).toBe(400);
    expect(fresh()).toEqual([
      'status 99 is not a CommentThreadStatus',
      'status "banana" is not a CommentThreadStatus',
      'the thread update is empty',
      'comment.content is required',
    ]);
    expect(ado.threads('Fabrikam', 'widgets', 7).find((t) => t.id === id)?.status).toBe('active');
  });

  it.each([
    [
      'state "banana"',
      { state: 'banana', context: { name: 'review' } },
      'state "banana" is not a GitStatusState',
    ],
    ['state 99', { state: 99, context: { name: 'review' } }, 'state 99 is not a GitStatusState'],
    ['no state', { context: { name: 'review' } }, 'state undefined is not a GitStatusState'],
    ['no context name', { state: 1, context: { genre: 'reviewbot' } }, 'context.name is required'],
    [
      'a relative target URL',
      { state: 1, context: { name: 'review' }, targetUrl: '/x' },
      'targetUrl is not an absolute URL',
    ],
    [
      'iteration 0',
      { state: 1, context: { name: 'review' }, iterationId: 0 },
      'iterationId is not an iteration id',
    ],
  ])('refuses a status with %s', async (_name, body, message) => {
    const before = ado.statuses('Fabrikam', 'widgets', 7).length;
    const res = await send('POST', 'statuses', body);
    expect(res.status).toBe(400);
    expect(fresh()).toEqual([message]);
    expect(ado.statuses('Fabrikam', 'widgets', 7)).toHaveLength(before);
  });

  it('accepts a status by number or by name', async () => {
    const ok = {
      context: { genre: 'reviewbot', name: 'review' },
      description: 'Reviewing',
      targetUrl: 'https://x.example/1',
      iterationId: 1,
    };
    expect((await send('POST', 'statuses', { ...ok, state: 1 })).status).toBe(200);
    expect((await send('POST', 'statuses', { ...ok, state: 'succeeded' })).status).toBe(200);
    expect(
      ado
        .statuses('Fabrikam', 'widgets', 7)
        .map((s) => s.state)
        .slice(-2),
    ).toEqual(['pending', 'succeeded']);
    expect(fresh()).toEqual([]);
  });

  it('knows each enum by number within range and by name in any case', () => {
    expect(THREAD_STATUS.map((_, i) => isEnumValue(THREAD_STATUS, i))).toEqual(THREAD_STATUS.map(() => true));
    expect(isEnumValue(THREAD_STATUS, THREAD_STATUS.length)).toBe(false);
    expect(isEnumValue(THREAD_STATUS, -1)).toBe(false);
    expect(isEnumValue(THREAD_STATUS, 1.5)).toBe(false);
    expect(isEnumValue(THREAD_STATUS, 'WONTFIX')).toBe(true);
    expect(isEnumValue(THREAD_STATUS, null)).toBe(false);
  });
});
