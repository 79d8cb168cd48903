/**
 * Security audit, issue 27, defect 1: a comment body built to make the mention scan slow must not
 * freeze `reviewbot serve`. The built server gets signed GitHub `issue_comment` webhooks with
 * 65,534-character adversarial bodies (backtick runs, unclosed fence runs, `>` lines) by a user
 * who is not allowed (ignored before the body is read) and by an allowed one (scanned, in linear
 * time), and GitLab `Note Hook`s with 1,000,000-character notes. Each webhook answer, and every
 * `/health` asked while it is in flight, must come back within 2 s (the old scan took ~24 s on the
 * first GitHub body, during which `/health` waited as long).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adversarialBodies } from '../support/adversarial-markdown.js';
import { sendGitLabWebhook, startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab/index.js';
import {
  createServeFixture,
  postComment,
  REVIEWER,
  summaryReply,
  waitFor,
  type ServeFixture,
} from './serve-fixture.js';

const GITLAB_TOKEN = 'glpat-e2eMentionDosToken000000000001';
const GITLAB_SECRET = 'gitlab-hook-secret-mention-dos-0123';
/** Generous against a loaded 2-core machine; the old code needed ~24 s. */
const BOUND_MS = 2000;
/** Give up on an answer after this long (the old code would otherwise hold the test for minutes). */
const GIVE_UP_MS = 10_000;

type Answer = { status: number; json: Record<string, unknown> };

describe('reviewbot serve answers adversarial Markdown at once (issue 27)', () => {
  let fx: ServeFixture;
  let gitlab: FakeGitLab;

  beforeAll(async () => {
    gitlab = await startFakeGitLab({ token: GITLAB_TOKEN, username: 'reviewbot-gl' });
    fx = await createServeFixture({
      GITLAB_TOKEN,
      GITLAB_URL: gitlab.url,
      GITLAB_WEBHOOK_SECRET: GITLAB_SECRET,
    });
    await gitlab.addMergeRequest({
      project: 'acme/widgets',
      iid: 7,
      bareRepoPath: fx.scenario.bareRepoPath,
      sourceBranch: fx.scenario.head,
      targetBranch: fx.scenario.base,
      title: 'Tune the service constants',
    });
    fx.llm.setScript(Array.from({ length: 3 }, () => summaryReply('Fine.')));
  }, 60_000);
  afterAll(async () => {
    await fx?.closeAll();
    await gitlab?.close();
  });

  /**
   * Sends one webhook (`deliver`) and probes `/health` back to back until its answer arrives;
   * returns the answer, its latency and the slowest `/health` latency (ms).
   */
  async function underProbe(
    deliver: () => Promise<Answer>,
  ): Promise<{ answer: Answer; webhookMs: number; healthMs: number }> {
    const started = performance.now();
    let done = false;
    const answer = deliver().finally(() => {
      done = true;
    });
    let healthMs = 0;
    do {
      const asked = performance.now();
      const res = await fetch(`${fx.server.url}/health`, { signal: AbortSignal.timeout(GIVE_UP_MS) });
      expect(res.status).toBe(200);
      await res.text();
      healthMs = Math.max(healthMs, performance.now() - asked);
    } while (!done);
    const result = await answer;
    return { answer: result, webhookMs: performance.now() - started, healthMs };
  }

  const withTimeout = <T>(promise: Promise<T>): Promise<T> =>
    Promise.race([
      promise,
      new Promise<T>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${GIVE_UP_MS} ms`)), GIVE_UP_MS),
      ),
    ]);

  describe.each(
    adversarialBodies(`@${REVIEWER} please review `, 65_534).map((b) => [b.name, b.body] as const),
  )('GitHub, %s (65,534 characters)', (_name, body) => {
    it.each([
      ['mallory', { status: 'ignored', reason: 'user mallory is not allowed' }],
      ['alice', { status: 'accepted' }],
    ] as const)(
      'by %s: answered and /health served within 2 s',
      async (login, expected) => {
        const { answer, webhookMs, healthMs } = await underProbe(() =>
          withTimeout(postComment(fx, 7, body, login)),
        );
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual(expected);
        expect(webhookMs).toBeLessThan(BOUND_MS);
        expect(healthMs).toBeLessThan(BOUND_MS);
      },
      30_000,
    );
  });

  it.each([
    ['mallory', 'at the start', { status: 'ignored', reason: 'user mallory is not allowed' }],
    // Past MENTION_SCAN_LIMIT (65,536 code units): not seen, as the README says.
    ['alice', 'after the scan limit', { status: 'ignored', reason: 'no mention of the bot' }],
  ] as const)(
    'GitLab, a 1,000,000-character note by %s with the mention %s: answered within 2 s',
    async (author, _where, expected) => {
      const [adversarial] = adversarialBodies('please review ', 1_000_000 - REVIEWER.length - 2);
      const body =
        author === 'mallory' ? `@${REVIEWER} ${adversarial!.body}` : `${adversarial!.body} @${REVIEWER}`;
      expect(body).toHaveLength(1_000_000);
      const note = gitlab.addNote({ project: 'acme/widgets', iid: 7, author, body });
      const hook = await gitlab.noteHook(note.noteId);
      const { answer, webhookMs, healthMs } = await underProbe(() =>
        withTimeout(
          sendGitLabWebhook(`${fx.server.url}/webhooks/gitlab`, 'Note Hook', hook, { token: GITLAB_SECRET }),
        ),
      );
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual(expected);
      expect(webhookMs).toBeLessThan(BOUND_MS);
      expect(healthMs).toBeLessThan(BOUND_MS);
    },
    30_000,
  );

  it('started a job for each of the allowed user’s mentions only, and broke no API rule', async () => {
    await waitFor(() => fx.llm.requests.length >= 3, 60_000, 'three reviews');
    expect(fx.server.logs.filter((l) => l.msg === 'job enqueued')).toHaveLength(3);
    expect(fx.github.violations).toEqual([]);
    expect(gitlab.violations).toEqual([]);
  }, 70_000);
});
