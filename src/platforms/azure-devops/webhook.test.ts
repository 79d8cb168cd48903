import { describe, expect, it } from 'vitest';
import { commentEvent, pullRequestEvent } from '../../../test/support/fake-azure-devops/service-hooks.js';
import { AZURE_DEVOPS_USERNAMES, isAzureFullName } from './names.js';
import { createAzureWebhookHandler } from './webhook.js';

const BOT = { id: '6f9619ff-8b86-d011-b42d-00cf4fc964ff', uniqueName: 'reviewbot@example.com' };
const ALICE = { id: '11111111-2222-4333-8444-555555555555', uniqueName: 'alice@example.com' };
const EVENT_ID = '2ab4e3d3-b7a6-425e-92b1-5a9982c1269e';
const PR = {
  pullRequestId: 7,
  status: 'active',
  title: 'T',
  createdBy: ALICE,
  sourceRefName: 'refs/heads/feature/x',
  targetRefName: 'refs/heads/main',
  lastMergeSourceCommit: { commitId: 'a'.repeat(40) },
  repository: { id: '4bc14d40-c903-45e2-872e-0462c7748079', name: 'widgets', project: { name: 'Fabrikam' } },
  url: 'https://dev.azure.com/acme/_apis/git/repositories/4bc14d40-c903-45e2-872e-0462c7748079/pullRequests/7',
};

function request(payload: unknown, user = 'hooks', password = 'secret') {
  return {
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    rawBody: Buffer.from(JSON.stringify(payload)),
  };
}

describe('Azure DevOps service hooks', () => {
  const handler = createAzureWebhookHandler('hooks', 'secret', () => BOT);
  const parse = (payload: Record<string, unknown>) => handler.parse(request(payload), payload);

  it('verifies Basic auth: both the user and the password must match', () => {
    const payload = pullRequestEvent('git.pullrequest.created', PR, EVENT_ID);
    expect(handler.verify(request(payload))).toBe(true);
    expect(handler.verify(request(payload, 'hooks', 'wrong'))).toBe(false);
    expect(handler.verify(request(payload, 'other', 'secret'))).toBe(false);
    expect(handler.verify(request(payload, 'hooks', 'secret:x'))).toBe(false);
    expect(handler.verify({ headers: {}, rawBody: Buffer.from('{}') })).toBe(false);
    expect(handler.verify({ headers: { authorization: 'Bearer secret' }, rawBody: Buffer.from('{}') })).toBe(
      false,
    );
    expect(handler.deliveryId(request(payload))).toBe(EVENT_ID);
  });

  it('refuses credentials without the Basic scheme, or without a user part', () => {
    const payload = pullRequestEvent('git.pullrequest.created', PR, EVENT_ID);
    const basic = request(payload).headers.authorization;
    const bare = basic.replace(/^Basic /, '');
    expect(handler.verify({ headers: { authorization: bare }, rawBody: Buffer.from('{}') })).toBe(false);
    // The scheme comes first: credentials followed by the word are no Basic credentials.
    const after = `${bare}== Basic x`;
    expect(handler.verify({ headers: { authorization: after }, rawBody: Buffer.from('{}') })).toBe(false);
    expect(handler.verify({ headers: { authorization: `  ${basic} ` }, rawBody: Buffer.from('{}') })).toBe(
      true,
    );
    expect(handler.verify({ headers: { authorization: `basic ${bare}` }, rawBody: Buffer.from('{}') })).toBe(
      true,
    );
    const noColon = `Basic ${Buffer.from('hookssecret').toString('base64')}`;
    expect(handler.verify({ headers: { authorization: noColon }, rawBody: Buffer.from('{}') })).toBe(false);
  });

  it('never throws from verify, even on a request whose headers cannot be read', () => {
    const headers = new Proxy({} as Record<string, string>, {
      get() {
        throw new Error('unreadable headers');
      },
    });
    expect(handler.verify({ headers, rawBody: Buffer.from('{}') })).toBe(false);
  });

  it.each([
    ['an empty user', '', 'secret'],
    ['an empty password', 'hooks', ''],
  ])('refuses %s at start-up, naming both variables', (_name, user, password) => {
    expect(() => createAzureWebhookHandler(user, password)).toThrow(
      'AZURE_DEVOPS_WEBHOOK_USER / AZURE_DEVOPS_WEBHOOK_SECRET: empty',
    );
  });

  it('takes as delivery id only a GUID, lower-cased', () => {
    const id = (value: unknown) => handler.deliveryId(request({ id: value }));
    expect(id(EVENT_ID.toUpperCase())).toBe(EVENT_ID);
    expect(id('not-a-guid')).toBeUndefined();
    expect(id(42)).toBeUndefined();
    expect(handler.deliveryId({ headers: {}, rawBody: Buffer.from('null') })).toBeUndefined();
  });

  it('answers "unreadable payload" instead of throwing when reading the body fails', () => {
    const payload = { ...pullRequestEvent('git.pullrequest.created', PR, EVENT_ID) };
    Object.defineProperty(payload, 'resource', {
      enumerable: true,
      get() {
        throw new Error('unreadable');
      },
    });
    expect(handler.parse({ headers: {}, rawBody: Buffer.from('{}') }, payload)).toEqual({
      kind: 'ignored',
      reason: 'unreadable payload',
    });
  });

  it('takes the delivery id from the top-level id, never a nested one that comes first', () => {
    const {
      id: _id,
      resource: _resource,
      ...rest
    } = pullRequestEvent('git.pullrequest.created', PR, EVENT_ID);
    const payload = {
      resource: { ...PR, id: '99999999-9999-4999-8999-999999999999' },
      ...rest,
      id: EVENT_ID,
    };
    expect(handler.deliveryId(request(payload))).toBe(EVENT_ID);
    expect(handler.deliveryId({ headers: {}, rawBody: Buffer.from('not json') })).toBeUndefined();
  });

  it('parses lifecycle events: created → pr_opened, updated → pr_push; a completed one is ignored', () => {
    expect(parse(pullRequestEvent('git.pullrequest.created', PR, EVENT_ID))).toMatchObject({
      kind: 'event',
      comment: {
        platform: 'azure-devops',
        repoFullName: 'Fabrikam/widgets',
        prNumber: 7,
        prBranch: 'feature/x',
        baseBranch: 'main',
        headSha: 'a'.repeat(40),
        commentType: 'lifecycle',
        eventType: 'pr_opened',
        deliveryId: EVENT_ID,
      },
    });
    expect(parse(pullRequestEvent('git.pullrequest.updated', PR))).toMatchObject({
      comment: { eventType: 'pr_push' },
    });
    expect(parse(pullRequestEvent('git.pullrequest.updated', { ...PR, status: 'completed' }))).toMatchObject({
      kind: 'ignored',
    });
  });

  it('parses a comment: its thread, its author unique name, and @<bot GUID> written as the bot name', () => {
    const event = commentEvent(PR, 12, { id: 1, content: `@<${BOT.id.toUpperCase()}> look`, author: ALICE });
    expect(parse(event)).toMatchObject({
      kind: 'event',
      comment: {
        commentId: '1',
        commentType: 'issue_comment',
        discussionId: '12',
        authorUsername: 'alice@example.com',
        body: '@reviewbot@example.com look',
        eventType: 'comment',
      },
    });
    const other = commentEvent(PR, 12, { id: 1, content: `@<${ALICE.id}> look`, author: ALICE });
    expect(parse(other)).toMatchObject({ comment: { body: `@<${ALICE.id}> look` } });
  });

  it.each([
    ['a repository name with a slash', { ...PR, repository: { ...PR.repository, name: 'a/b' } }],
    ['a project name starting with _', { ...PR, repository: { ...PR.repository, project: { name: '_x' } } }],
    ['a short commit id', { ...PR, lastMergeSourceCommit: { commitId: 'abc' } }],
    ['a ref outside refs/heads', { ...PR, sourceRefName: 'refs/tags/v1' }],
    ['a pull request id 0', { ...PR, pullRequestId: 0 }],
  ])('ignores a payload with %s', (_what, pr) => {
    expect(parse(pullRequestEvent('git.pullrequest.created', pr))).toMatchObject({ kind: 'ignored' });
  });

  it('ignores events it does not handle and a missing id', () => {
    expect(
      parse({ ...pullRequestEvent('git.pullrequest.created', PR), eventType: 'git.push' }),
    ).toMatchObject({
      kind: 'ignored',
      reason: 'event "git.push" not handled',
    });
    expect(parse({ ...pullRequestEvent('git.pullrequest.created', PR), id: 'x' })).toMatchObject({
      kind: 'ignored',
    });
  });

  it('names and mentions follow Azure DevOps rules', () => {
    expect(isAzureFullName('Fabrikam Fiber/widgets')).toBe(true);
    expect(isAzureFullName('Fabrikam/widgets.git')).toBe(false);
    expect(isAzureFullName('a/b/c')).toBe(false);
    expect(AZURE_DEVOPS_USERNAMES.isUsername(`<${BOT.id}>`)).toBe(true);
    expect(AZURE_DEVOPS_USERNAMES.isUsername('DOMAIN\\user')).toBe(true);
  });
});
