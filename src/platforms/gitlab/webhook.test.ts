import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.js';
import type { WebhookRequest } from '../types.js';
import { createGitLabWebhookHandler, splitGitLabSecrets } from './webhook.js';
import {
  diffNoteHook,
  issueNoteHook,
  mergeRequestHook,
  mergeRequestNoteHook,
} from './webhook-examples.test-helper.js';

const SECRET = 'gl-hook-secret-0123456789';

function request(headers: Record<string, string | undefined>, body: unknown = {}): WebhookRequest {
  return { headers, rawBody: Buffer.from(JSON.stringify(body)) };
}

function parse(
  event: string | undefined,
  body: Record<string, unknown>,
  uuid = 'e5a1c2d3-0000-4000-8000-000000000001',
) {
  const handler = createGitLabWebhookHandler([SECRET]);
  return handler.parse(request({ 'x-gitlab-event': event, 'x-gitlab-event-uuid': uuid }), body);
}

describe('GitLab webhook verification', () => {
  const handler = createGitLabWebhookHandler([SECRET, 'old-secret-during-rotation']);

  it.each([
    ['the secret', SECRET, true],
    ['the previous secret during rotation', 'old-secret-during-rotation', true],
    ['a wrong token', 'gl-hook-secret-0123456780', false],
    ['a prefix of the secret', SECRET.slice(0, 10), false],
    ['the secret plus a suffix', `${SECRET}x`, false],
    ['an empty token', '', false],
    ['no token', undefined, false],
  ])('%s → %s', (_name, token, expected) => {
    expect(handler.verify(request({ 'x-gitlab-token': token }))).toBe(expected);
  });

  it('reads the delivery id from X-Gitlab-Event-UUID', () => {
    expect(handler.deliveryId(request({ 'x-gitlab-event-uuid': ' 4b0c-uuid ' }))).toBe('4b0c-uuid');
    expect(handler.deliveryId(request({}))).toBeUndefined();
  });

  it('splits a rotation list and refuses an empty one, naming the variable', () => {
    expect(splitGitLabSecrets(' new , old ,')).toEqual(['new', 'old']);
    expect(() => splitGitLabSecrets(' , ')).toThrow(ConfigError);
    expect(() => splitGitLabSecrets(' , ')).toThrow(
      'GITLAB_WEBHOOK_SECRET: no secret in the comma-separated list',
    );
    expect(() => createGitLabWebhookHandler([])).toThrow(/GITLAB_WEBHOOK_SECRET/);
  });

  it('refuses a list holding only empty secrets at start-up, not at the first delivery', () => {
    expect(() => createGitLabWebhookHandler([''])).toThrow('GITLAB_WEBHOOK_SECRET: empty');
    expect(() => createGitLabWebhookHandler(['', ''])).toThrow(ConfigError);
  });

  it('ignores an empty entry next to a real secret: an empty token still verifies nothing', () => {
    const withBlank = createGitLabWebhookHandler(['', SECRET]);
    expect(withBlank.verify(request({ 'x-gitlab-token': SECRET }))).toBe(true);
    expect(withBlank.verify(request({ 'x-gitlab-token': '' }))).toBe(false);
  });
});

describe('GitLab webhook parsing', () => {
  it('turns a merge request note into an issue_comment replying in its discussion', () => {
    expect(parse('Note Hook', mergeRequestNoteHook())).toEqual({
      kind: 'event',
      comment: {
        platform: 'gitlab',
        repoFullName: 'gitlab-org/platform/gitlab-test',
        prNumber: 1,
        prBranch: 'ms-viewport',
        baseBranch: 'markdown',
        headSha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        prTitle: 'Tempora et eos debitis quae laborum et.',
        commentId: '1244',
        commentType: 'issue_comment',
        authorUsername: 'root',
        body: '@review-bot please review the parser',
        discussionId: '87805b7c09016a7058e91bdbe7b29d1f284a39e6',
        cloneUrl: 'http://example.com/jsmith/gitlab-test.git',
        deliveryId: 'e5a1c2d3-0000-4000-8000-000000000001',
        eventType: 'comment',
      },
    });
  });

  it('turns a DiffNote into a review_comment with its file and line', () => {
    const result = parse('Note Hook', diffNoteHook());
    expect(result).toMatchObject({
      kind: 'event',
      comment: {
        commentId: '1245',
        commentType: 'review_comment',
        filePath: 'lib/parser.rb',
        line: 27,
        side: 'RIGHT',
        discussionId: '6a9c1750b37d513a43987b574953fceb50b03ce7',
        body: '@review-bot is this loop bounded?',
      },
    });
  });

  it('takes old_line and the LEFT side for a DiffNote on a removed line', () => {
    const hook = diffNoteHook() as { object_attributes: { position: Record<string, unknown> } };
    Object.assign(hook.object_attributes.position, { new_line: null, old_line: 12 });
    expect(parse('Note Hook', hook)).toMatchObject({
      comment: { line: 12, side: 'LEFT', filePath: 'lib/parser.rb' },
    });
  });

  it('passes the trimmed delivery id and event name to the parser', () => {
    const handler = createGitLabWebhookHandler([SECRET]);
    const headers = { 'x-gitlab-event': ' Note Hook ', 'x-gitlab-event-uuid': ' uuid-1 ' };
    expect(handler.parse(request(headers), mergeRequestNoteHook())).toMatchObject({
      kind: 'event',
      comment: { commentId: '1244', deliveryId: 'uuid-1' },
    });
  });

  it('parses a delivery without X-Gitlab-Event-UUID, with an empty delivery id', () => {
    const handler = createGitLabWebhookHandler([SECRET]);
    expect(handler.parse(request({ 'x-gitlab-event': 'Note Hook' }), mergeRequestNoteHook())).toMatchObject({
      kind: 'event',
      comment: { commentId: '1244', deliveryId: '' },
    });
  });

  it('answers "unreadable payload" instead of throwing when reading the body fails', () => {
    const handler = createGitLabWebhookHandler([SECRET]);
    const body = mergeRequestNoteHook();
    Object.defineProperty(body, 'object_attributes', {
      enumerable: true,
      get() {
        throw new Error('unreadable');
      },
    });
    expect(handler.parse(request({ 'x-gitlab-event': 'Note Hook' }), body)).toEqual({
      kind: 'ignored',
      reason: 'unreadable payload',
    });
  });

  it('falls back to object_kind without the event header', () => {
    expect(parse(undefined, mergeRequestNoteHook())).toMatchObject({
      kind: 'event',
      comment: { commentId: '1244' },
    });
  });

  it.each([
    ['open', {}, 'pr_opened'],
    ['reopen', {}, 'pr_reopened'],
    ['update', { oldrev: '95790bf891e76fee5e1747ab589903a6a1f80f22' }, 'pr_push'],
  ])('turns Merge Request Hook %s into %s', (action, extra, eventType) => {
    expect(parse('Merge Request Hook', mergeRequestHook(action, extra))).toEqual({
      kind: 'event',
      comment: {
        platform: 'gitlab',
        repoFullName: 'gitlab-org/platform/gitlab-test',
        prNumber: 1,
        prBranch: 'ms-viewport',
        baseBranch: 'master',
        headSha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        prTitle: 'MS-Viewport',
        commentId: '',
        commentType: 'lifecycle',
        authorUsername: 'root',
        body: '',
        cloneUrl: 'http://example.com/jsmith/gitlab-test.git',
        deliveryId: 'e5a1c2d3-0000-4000-8000-000000000001',
        eventType,
      },
    });
  });

  it('turns a draft marked ready into pr_ready_for_review', () => {
    const hook = mergeRequestHook('update');
    hook.changes = { draft: { previous: true, current: false } };
    expect(parse('Merge Request Hook', hook)).toMatchObject({
      comment: { eventType: 'pr_ready_for_review' },
    });
  });

  it.each([
    ['an issue note', 'Note Hook', issueNoteHook(), /note on Issue, not a merge request/],
    [
      'a system note',
      'Note Hook',
      (() => {
        const h = mergeRequestNoteHook() as { object_attributes: Record<string, unknown> };
        h.object_attributes.system = true;
        return h;
      })(),
      /system note/,
    ],
    [
      'an edited note',
      'Note Hook',
      (() => {
        const h = mergeRequestNoteHook() as { object_attributes: Record<string, unknown> };
        h.object_attributes.action = 'update';
        return h;
      })(),
      /note action "update" not handled/,
    ],
    [
      'an update without new commits',
      'Merge Request Hook',
      mergeRequestHook('update'),
      /update without new commits/,
    ],
    ['a merge', 'Merge Request Hook', mergeRequestHook('merge'), /action "merge" not handled/],
    ['an approval', 'Merge Request Hook', mergeRequestHook('approved'), /action "approved" not handled/],
    ['a push', 'Push Hook', { object_kind: 'push' }, /event "Push Hook" not handled/],
    [
      'a note without merge_request',
      'Note Hook',
      { ...mergeRequestNoteHook(), merge_request: null },
      /merge_request is missing/,
    ],
    [
      'a note without user',
      'Note Hook',
      { ...mergeRequestNoteHook(), user: 'root' },
      /malformed Note Hook payload: user/,
    ],
    ['an empty body', undefined, {}, /missing X-Gitlab-Event header/],
  ] as const)('ignores %s with a reason', (_name, event, body, reason) => {
    const result = parse(event, body as Record<string, unknown>);
    expect(result.kind).toBe('ignored');
    expect(result.kind === 'ignored' && result.reason).toMatch(reason);
  });
});
