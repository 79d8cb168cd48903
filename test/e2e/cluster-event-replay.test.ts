/**
 * Cluster mode: one signed GitHub comment delivered three times under three delivery ids becomes
 * one Kubernetes Job; a second comment with the same text becomes another. Counted at the fake
 * Kubernetes API (Jobs created) and at the fake model API (agent runs in the Jobs' pods).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGitHubWebhook } from '../support/serve-process.js';
import { createClusterFixture, promptOf, type ClusterFixture } from './cluster-fixture.js';
import { issueCommentPayload } from './github-payloads.js';
import { ALICE, jobTag, REVIEWER, summaryReply, waitFor, WEBHOOK_SECRET } from './serve-fixture.js';

describe('reviewbot serve in cluster mode: a signed comment replayed under new delivery ids', () => {
  let fx: ClusterFixture;
  beforeAll(async () => {
    fx = await createClusterFixture();
  });
  afterAll(async () => {
    await fx?.closeAll();
  });

  /** Writes a comment on #7 and returns a sender of its webhook under a given delivery id. */
  function comment(body: string): (deliveryId: string) => ReturnType<typeof sendGitHubWebhook> {
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
    return (deliveryId) =>
      sendGitHubWebhook(fx.server.url, 'issue_comment', payload, { secret: WEBHOOK_SECRET, deliveryId });
  }

  it('starts one Job per comment, whatever delivery ids its copies carry', async () => {
    fx.llm.setScript((request) => summaryReply(`Reviewed job-${jobTag(request) ?? '?'}.`));
    const text = `@${REVIEWER} job-R1 review`;
    const first = comment(text);
    const answers = [];
    for (const id of ['r-1', 'r-2', 'r-3']) answers.push((await first(`cluster-${id}`)).json);
    answers.push((await comment(text)('cluster-r-4')).json);
    // Jobs of one pull request run in order: once the last one ran, every earlier one had.
    answers.push((await comment(`@${REVIEWER} job-R9 review`)('cluster-r-9')).json);
    await waitFor(
      () => fx.github.issueComments.find((c) => c.body?.includes('Reviewed job-R9.')),
      60_000,
      'the last reply',
    );

    expect(fx.k8s.jobs.map(promptOf)).toEqual(['job-R1 review', 'job-R1 review', 'job-R9 review']);
    expect(fx.llm.requests.filter((r) => jobTag(r) === 'R1')).toHaveLength(2);
    const duplicate = { status: 'ignored', reason: 'duplicate event' };
    const accepted = { status: 'accepted' };
    expect(answers).toEqual([accepted, duplicate, duplicate, accepted, accepted]);
    expect(fx.k8s.rejections).toEqual([]);
    expect(fx.github.violations).toEqual([]);
  }, 90_000);
});
