/** JobPayloads for queue tests and the cluster benchmark. */
import { randomUUID } from 'node:crypto';
import type { JobPayload } from '../../src/jobs/types.js';

/** `count` reviewer payloads (fresh job ids) for pull request `pr` of acme/widgets, in order. */
export function payloadsFor(pr: number, count: number): JobPayload[] {
  return Array.from({ length: count }, (_, index) => ({
    version: 1,
    jobId: randomUUID(),
    botType: 'reviewer',
    prompt: `job ${index + 1} on #${pr}`,
    enqueuedAt: new Date().toISOString(),
    comment: {
      platform: 'github',
      repoFullName: 'acme/widgets',
      prNumber: pr,
      prBranch: 'feature',
      baseBranch: 'main',
      headSha: 'abc123',
      prTitle: 'Tune the service constants',
      commentId: `${pr}0${index}`,
      commentType: 'issue_comment',
      authorUsername: 'alice',
      body: '@rb-review please check',
      cloneUrl: 'https://github.com/acme/widgets.git',
      deliveryId: `delivery-${pr}-${index}`,
      eventType: 'comment',
    },
  }));
}
