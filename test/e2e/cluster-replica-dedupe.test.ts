/**
 * Cluster mode with two `reviewbot serve` replicas behind one Service (separate processes sharing
 * one Redis and one Kubernetes API): copies of one signed comment that reach different replicas,
 * under different delivery ids or under the same one, become one Kubernetes Job; a second comment
 * becomes a second Job. Counted at the fake Kubernetes API (Jobs created) and at the fake model API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitHubWebhook, type ServeProcess } from '../support/serve-process.js';
import { createClusterFixture, promptOf, type ClusterFixture } from './cluster-fixture.js';
import { issueCommentPayload } from './github-payloads.js';
import { ALICE, jobTag, REVIEWER, summaryReply, waitFor, WEBHOOK_SECRET } from './serve-fixture.js';

describe('reviewbot serve in cluster mode: copies of one comment at two replicas', () => {
  let fx: ClusterFixture;
  let a: ServeProcess;
  let b: ServeProcess;
  beforeAll(async () => {
    fx = await createClusterFixture();
    a = fx.server;
    b = await fx.startReplica();
    fx.llm.setScript((request) => summaryReply(`Reviewed job-${jobTag(request) ?? '?'}.`));
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  /** Writes a comment on #7; returns a sender of its signed webhook to a replica under an id. */
  function comment(text: string): (server: ServeProcess, deliveryId: string) => Promise<unknown> {
    const body = `@${REVIEWER} ${text}`;
    const seeded = fx.github.addIssueComment({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      body,
      user: ALICE,
    });
    const payload = issueCommentPayload({
      repo: 'acme/widgets',
      pr: 7,
      body,
      login: ALICE,
      commentId: seeded.id,
    });
    return async (server, deliveryId) =>
      (await sendGitHubWebhook(server.url, 'issue_comment', payload, { secret: WEBHOOK_SECRET, deliveryId }))
        .json;
  }

  const accepted = { status: 'accepted' };
  const duplicateEvent = { status: 'ignored', reason: 'duplicate event' };
  const duplicateDelivery = { status: 'ignored', reason: 'duplicate delivery' };

  it('starts one Job per comment, whichever replica and delivery id each copy has', async () => {
    const first = comment('job-D1 review');
    // Replica a with id 1, replica b with id 2: the same comment.
    expect(await first(a, 'replicas-1')).toEqual(accepted);
    expect(await first(b, 'replicas-2')).toEqual(duplicateEvent);
    // The same delivery id at both replicas (b never saw it itself).
    expect(await first(b, 'replicas-1')).toEqual(duplicateDelivery);
    // A second, distinct comment (the same text) is another job, once.
    const second = comment('job-D1 review');
    expect(await second(b, 'replicas-3')).toEqual(accepted);
    expect(await second(a, 'replicas-3')).toEqual(duplicateDelivery);
    expect(await second(a, 'replicas-4')).toEqual(duplicateEvent);
    // Copies of a third comment reaching both replicas at the same moment.
    const third = comment('job-D3 review');
    const together = await Promise.all([third(a, 'replicas-5'), third(b, 'replicas-6')]);
    expect(together).toContainEqual(accepted);
    expect(together).toContainEqual(duplicateEvent);
    // Jobs of one pull request run in order: once the last one ran, every earlier one had.
    expect(await comment('job-D9 review')(a, 'replicas-9')).toEqual(accepted);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Reviewed job-D9.')),
      60_000,
      'the last reply',
    );

    expect(fx.k8s.jobs.map(promptOf)).toEqual([
      'job-D1 review',
      'job-D1 review',
      'job-D3 review',
      'job-D9 review',
    ]);
    expect(fx.llm.requests.filter((r) => jobTag(r) === 'D1')).toHaveLength(2);
    expect(fx.llm.requests.filter((r) => jobTag(r) === 'D3')).toHaveLength(1);
    // The claims live in the store for STORE_KEY_TTL_SECONDS (3600 here).
    const claims = await fx.store.keys('reviewbot:event:*');
    expect(claims).toHaveLength(4);
    const ttl = await fx.store.ttl(claims[0]!);
    expect(ttl).toBeGreaterThan(3000);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect(await fx.store.exists('reviewbot:delivery:github:replicas-1')).toBe(1);
    expect(fx.k8s.rejections).toEqual([]);
    expect(fx.github.violations).toEqual([]);
  }, 90_000);
});
