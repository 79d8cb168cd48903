/**
 * Gitea/Forgejo webhooks through the real server (`/webhooks/gitea`), the real handler and the
 * real dispatcher: signatures (Gitea's and Forgejo's header, JSON and form bodies, rotation), 401
 * before parsing, delivery de-duplication, every event of CONTRACT §6 from payloads built like
 * Gitea's `modules/structs`, mentions of Gitea usernames, the bot-loop guard and lifecycle triggers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../types.js';
import { createGiteaWebhookHandler } from './webhook.js';
import { decodeWebhookBody } from '../../server/decode-body.js';
import { CTX, HOOKS, PR, startHooksHarness, type HooksHarness } from './gitea-hooks.test-helper.js';
import { signGiteaPayload } from '../../../test/support/fake-gitea/send-webhook.js';
import {
  issueCommentHook,
  pullRequestCommentHook,
  pullRequestHook,
  reviewHook,
} from '../../../test/support/fake-gitea/webhook-payloads.js';

let h: HooksHarness;
beforeAll(async () => {
  h = await startHooksHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  h.jobs.length = 0;
  h.reactions.length = 0;
});

// Every comment gets its own id: the server starts one job per comment (CONTRACT §5).
let nextCommentId = 5000;
const comment = (body: string, author: string = HOOKS.user, id = nextCommentId++) =>
  pullRequestCommentHook(CTX, PR, { id, body, author });

describe('Gitea webhook verification', () => {
  const handler = createGiteaWebhookHandler([HOOKS.secret]);
  const body = '{\n  "action": "created"\n}';
  const sig = signGiteaPayload(HOOKS.secret, body);
  const req = (headers: Record<string, string>, raw = body): WebhookRequest => ({
    headers,
    rawBody: Buffer.from(raw),
  });

  it.each([
    ['X-Gitea-Signature', { 'x-gitea-signature': sig }, true],
    ['X-Forgejo-Signature alone', { 'x-forgejo-signature': sig }, true],
    ['both, equal', { 'x-gitea-signature': sig, 'x-forgejo-signature': sig }, true],
    ['upper-case hex', { 'x-gitea-signature': sig.toUpperCase() }, true],
    ['both, one wrong', { 'x-gitea-signature': sig, 'x-forgejo-signature': '0'.repeat(64) }, false],
    ['a GitHub-style prefix', { 'x-gitea-signature': `sha256=${sig}` }, false],
    ['a truncated signature', { 'x-gitea-signature': sig.slice(0, 63) }, false],
    ['a 65th digit', { 'x-gitea-signature': `${sig}0` }, false],
    ['the header sent twice (joined by a comma)', { 'x-gitea-signature': `${sig}, ${sig}` }, false],
    ['both, one with a 65th digit', { 'x-gitea-signature': sig, 'x-forgejo-signature': `${sig}0` }, false],
    ['an empty signature (a webhook without secret)', { 'x-gitea-signature': '' }, false],
    ['only X-Hub-Signature-256', { 'x-hub-signature-256': `sha256=${sig}` }, false],
    ['nothing', {}, false],
  ])('%s → %s', (_name, headers, ok) => {
    expect(handler.verify(req(headers))).toBe(ok);
  });

  it('checks a form body against its payload field, which is what Gitea signs', () => {
    const form = new URLSearchParams({ payload: body }).toString();
    const type = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(handler.verify(req({ ...type, 'x-gitea-signature': sig }, form))).toBe(true);
    const overForm = signGiteaPayload(HOOKS.secret, form);
    expect(handler.verify(req({ ...type, 'x-gitea-signature': overForm }, form))).toBe(false);
    expect(handler.verify(req({ ...type, 'x-gitea-signature': sig }, 'other=1'))).toBe(false);
  });

  it('checks the bytes the server decodes: the content type decides, read the same way', () => {
    const form = new URLSearchParams({ payload: body }).toString();
    const formSig = { 'x-gitea-signature': sig };
    const wholeSig = { 'x-gitea-signature': signGiteaPayload(HOOKS.secret, form) };
    for (const [type, isForm] of [
      ['application/x-www-form-urlencoded', true],
      ['Application/X-WWW-Form-Urlencoded; charset=UTF-8', true],
      [' application/x-www-form-urlencoded', true],
      ['application/json', false],
      ['text/plain; note=application/x-www-form-urlencoded', false],
      ['xapplication/x-www-form-urlencoded', false],
      ['application/x-www-form-urlencodedx', false],
    ] as const) {
      const decoded = decodeWebhookBody(type, Buffer.from(form));
      expect(decoded.ok, type).toBe(isForm);
      expect(handler.verify(req({ 'content-type': type, ...formSig }, form)), type).toBe(isForm);
      expect(handler.verify(req({ 'content-type': type, ...wholeSig }, form)), type).toBe(!isForm);
    }
  });

  it('refuses an empty secret list', () => {
    expect(() => createGiteaWebhookHandler(['', ''])).toThrow(/GITEA_WEBHOOK_SECRET/);
  });

  it('never throws from verify, even on a request whose headers cannot be read', () => {
    const headers = new Proxy({} as Record<string, string>, {
      get() {
        throw new Error('unreadable headers');
      },
    });
    expect(handler.verify({ headers, rawBody: Buffer.from(body) })).toBe(false);
  });

  it('reads the delivery id from X-Gitea-Delivery, else X-Forgejo-Delivery, trimmed', () => {
    expect(handler.deliveryId(req({ 'x-gitea-delivery': ' d-1 ', 'x-forgejo-delivery': 'd-2' }))).toBe('d-1');
    expect(handler.deliveryId(req({ 'x-forgejo-delivery': 'd-2' }))).toBe('d-2');
    expect(handler.deliveryId(req({ 'x-gitea-delivery': ' ' }))).toBeUndefined();
  });

  it.each([
    ['X-Forgejo-Event alone', { 'x-forgejo-event': 'issue_comment' }],
    ['X-Forgejo-Event-Type alone', { 'x-forgejo-event-type': 'pull_request_comment' }],
    ['X-Gitea-Event-Type, trimmed', { 'x-gitea-event-type': ' pull_request_comment ' }],
  ])('parses a delivery naming its event with %s', (_name, headers) => {
    const hook = comment(`@${HOOKS.reviewer} go`);
    expect(handler.parse(req({ ...headers, 'x-forgejo-delivery': 'd-3' }), hook.payload)).toMatchObject({
      kind: 'event',
      comment: { prNumber: PR.number, deliveryId: 'd-3' },
    });
    expect(handler.parse(req(headers), hook.payload)).toMatchObject({ comment: { deliveryId: '' } });
  });

  it('answers "unreadable payload" instead of throwing when reading the body fails', () => {
    const payload = { ...comment(`@${HOOKS.reviewer} go`).payload };
    Object.defineProperty(payload, 'comment', {
      enumerable: true,
      get() {
        throw new Error('unreadable');
      },
    });
    expect(handler.parse(req({ 'x-gitea-event': 'issue_comment' }), payload)).toEqual({
      kind: 'ignored',
      reason: 'unreadable payload',
    });
  });
});

describe('POST /webhooks/gitea: signature before anything else', () => {
  it.each([
    ['no signature header', { 'x-gitea-signature': undefined }],
    ['a wrong signature', { 'x-gitea-signature': 'ab'.repeat(32) }],
    ['a signature of another body', { 'x-gitea-signature': signGiteaPayload(HOOKS.secret, '{}') }],
  ])('%s → 401, nothing dispatched', async (_name, headers) => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} review`), { headers });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'signature verification failed' });
    expect(h.jobs).toEqual([]);
  });

  it('a body signed with another secret → 401', async () => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} review`), { secret: 'not-the-secret' });
    expect(answer.status).toBe(401);
  });

  it('an unparseable body with a wrong signature is 401, not 400 (checked before parsing)', async () => {
    const response = await fetch(`${h.url}/webhooks/gitea`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitea-signature': 'cd'.repeat(32) },
      body: '{not json',
    });
    expect(response.status).toBe(401);
  });

  it.each([
    ['Gitea', { forgejo: false }],
    ['Forgejo (X-Forgejo-* headers too)', { forgejo: true }],
    [
      'Forgejo without X-Gitea-* headers',
      {
        forgejo: true,
        headers: {
          'x-gitea-signature': undefined,
          'x-gitea-event': undefined,
          'x-gitea-event-type': undefined,
          'x-gitea-delivery': undefined,
        },
      },
    ],
    ['a form-encoded body', { contentType: 'form' as const }],
    ['the previous secret during rotation', { secret: HOOKS.oldSecret }],
  ])('accepts a delivery from %s', async (_name, options) => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} please review`), options);
    expect(answer).toMatchObject({ status: 200, json: { status: 'accepted' } });
    expect(h.jobs).toHaveLength(1);
  });
});

describe('delivery de-duplication (X-Gitea-Delivery)', () => {
  it('answers a redelivered id "duplicate delivery" and starts nothing more', async () => {
    const hook = comment(`@${HOOKS.reviewer} review`);
    const first = await h.send(hook, { deliveryId: 'c0ffee00-0000-4000-8000-000000000001' });
    const again = await h.send(hook, { deliveryId: 'c0ffee00-0000-4000-8000-000000000001' });
    expect(first.json).toEqual({ status: 'accepted' });
    expect(again).toMatchObject({ status: 200, json: { status: 'ignored', reason: 'duplicate delivery' } });
    expect(h.jobs).toHaveLength(1);
    expect(h.jobs[0]!.comment.deliveryId).toBe('c0ffee00-0000-4000-8000-000000000001');
  });
});

describe('events (CONTRACT §6)', () => {
  it('a pull request comment → issue_comment with the branches, SHAs and clone URL; eyes on it', async () => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} check the error paths`, HOOKS.user, 4321));
    expect(answer.json).toEqual({ status: 'accepted' });
    expect(h.jobs[0]).toMatchObject({
      botType: 'reviewer',
      prompt: 'check the error paths',
      comment: {
        platform: 'gitea',
        repoFullName: 'acme/widgets',
        prNumber: 7,
        prBranch: 'feature/parser',
        baseBranch: 'main',
        headSha: PR.headSha,
        prTitle: 'Add the parser',
        commentId: '4321',
        commentType: 'issue_comment',
        authorUsername: 'alice',
        cloneUrl: 'http://gitea.test:3000/acme/widgets.git',
        deliveryId: answer.deliveryId,
        eventType: 'comment',
      },
    });
    expect(h.reactions).toEqual([
      { repoFullName: 'acme/widgets', prNumber: 7, commentId: '4321', commentType: 'issue_comment' },
    ]);
  });

  it('without `pull_request` (older releases) the branches are left for the job to fetch', async () => {
    const hook = pullRequestCommentHook(
      CTX,
      PR,
      { id: 9, body: `@${HOOKS.worker} fix it` },
      { withPullRequest: false },
    );
    expect((await h.send(hook, { forgejo: true })).json).toEqual({ status: 'accepted' });
    expect(h.jobs[0]).toMatchObject({
      botType: 'worker',
      comment: { prNumber: 7, prBranch: '', headSha: '', cloneUrl: '', commentType: 'issue_comment' },
    });
  });

  it.each(['comment', 'approved', 'rejected'] as const)('a %s review with a body → review', async (kind) => {
    // A review carries no id: its text (and author and head) tells two reviews apart.
    const answer = await h.send(reviewHook(CTX, PR, `@${HOOKS.reviewer} second look please (${kind})`, kind));
    expect(answer.json).toEqual({ status: 'accepted' });
    expect(h.jobs[0]).toMatchObject({
      botType: 'reviewer',
      prompt: `second look please (${kind})`,
      comment: { commentType: 'review', commentId: '', headSha: PR.headSha, authorUsername: 'alice' },
    });
    expect(h.reactions).toEqual([]);
  });

  it.each([
    ['a review without a body', reviewHook(CTX, PR, '  '), 'pull_request_review_comment review has no body'],
    [
      'a comment on an issue',
      issueCommentHook(CTX, 3, { id: 5, body: `@${HOOKS.reviewer} hi` }),
      'not a pull request',
    ],
    ['a closed pull request', pullRequestHook(CTX, PR, 'closed'), 'pull_request action "closed" not handled'],
    [
      'an edited pull request',
      pullRequestHook(CTX, PR, 'edited'),
      'pull_request action "edited" not handled',
    ],
    [
      'an edited comment',
      {
        ...comment(`@${HOOKS.reviewer} x`),
        payload: { ...comment(`@${HOOKS.reviewer} x`).payload, action: 'edited' },
      },
      'pull_request_comment action "edited" not handled',
    ],
    [
      'a push',
      { names: { event: 'push', eventType: 'push' }, payload: { ref: 'refs/heads/main' } },
      'event "push" not handled',
    ],
  ])('%s → ignored', async (_name, hook, reason) => {
    expect((await h.send(hook)).json).toEqual({ status: 'ignored', reason });
    expect(h.jobs).toEqual([]);
  });

  it('a delivery without any event header is ignored', async () => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} go`), {
      headers: { 'x-gitea-event': undefined, 'x-gitea-event-type': undefined },
    });
    expect(answer.json).toEqual({ status: 'ignored', reason: 'missing X-Gitea-Event header' });
  });

  it('takes the coarse X-Gitea-Event when no event type is sent', async () => {
    const answer = await h.send(comment(`@${HOOKS.reviewer} go`), {
      headers: { 'x-gitea-event-type': undefined },
    });
    expect(answer.json).toEqual({ status: 'accepted' });
    const review = await h.send(reviewHook(CTX, PR, `@${HOOKS.reviewer} go (coarse event)`), {
      headers: { 'x-gitea-event-type': undefined },
    });
    expect(review.json).toEqual({ status: 'accepted' });
  });
});

describe('lifecycle triggers', () => {
  it.each([
    ['opened', 'pr_opened'],
    ['synchronized', 'pr_push'],
    ['reopened', 'pr_reopened'],
  ] as const)('pull_request %s → a REVIEWER job, eventType %s, empty prompt', async (action, eventType) => {
    const answer = await h.send(pullRequestHook({ ...CTX, sender: 'mallory' }, PR, action));
    expect(answer.json).toEqual({ status: 'accepted' });
    expect(h.jobs[0]).toMatchObject({
      botType: 'reviewer',
      prompt: '',
      comment: { commentType: 'lifecycle', eventType, headSha: PR.headSha, authorUsername: 'mallory' },
    });
  });

  it('a fork whose repository was deleted clones from the base repository', async () => {
    await h.send(pullRequestHook(CTX, { ...PR, number: 8, headRepo: null }, 'opened'));
    expect(h.jobs[0]!.comment.cloneUrl).toBe('http://gitea.test:3000/acme/widgets.git');
  });
});

describe('mentions of Gitea usernames', () => {
  it.each([
    [`@${HOOKS.reviewer} look`, 'reviewer', 'look'],
    [`@RB.BOT look`, 'reviewer', 'look'],
    [`(@${HOOKS.reviewer}) look`, 'reviewer', '() look'],
    [`thanks @${HOOKS.reviewer}.`, 'reviewer', 'thanks .'],
    [`@${HOOKS.worker}: rename it`, 'worker', ': rename it'],
    [`@${HOOKS.worker} and @${HOOKS.reviewer}`, 'worker', `and @${HOOKS.reviewer}`],
  ])('%j → %s job, prompt %j', async (body, botType, prompt) => {
    expect((await h.send(comment(body))).json).toEqual({ status: 'accepted' });
    expect(h.jobs[0]).toMatchObject({ botType, prompt });
  });

  it.each([
    `@${HOOKS.reviewer}x look`,
    `@${HOOKS.reviewer}.x look`,
    `@${HOOKS.reviewer}_x look`,
    `@${HOOKS.worker}-2 look`,
    `@${HOOKS.reviewer}/team`,
    `mail@${HOOKS.reviewer} look`,
    `\`@${HOOKS.reviewer}\` is the bot`,
    `\`\`\`\n@${HOOKS.reviewer} look\n\`\`\``,
    `> @${HOOKS.reviewer} look`,
  ])('%j mentions no bot', async (body) => {
    expect((await h.send(comment(body))).json).toEqual({
      status: 'ignored',
      reason: 'no mention of the bot',
    });
    expect(h.jobs).toEqual([]);
  });
});

describe('bot-loop guard', () => {
  it.each([HOOKS.self, HOOKS.reviewer, 'RB-BOT'])(
    'a comment by the bot (%s) starts nothing',
    async (author) => {
      const answer = await h.send(comment(`@${HOOKS.worker} fix it, @${HOOKS.reviewer} review`, author));
      expect(answer.json).toEqual({ status: 'ignored', reason: 'comment by a bot' });
      expect(h.jobs).toEqual([]);
      expect(h.reactions).toEqual([]);
    },
  );
});
