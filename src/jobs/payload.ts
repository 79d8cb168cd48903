/**
 * JobPayload (de)serialization (CONTRACT §7): the server writes it into a cluster Job's
 * `REVIEWBOT_JOB_PAYLOAD`; `reviewbot run-job` reads it back, validated.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { JobPayload } from './types.js';

const reviewComment = z.object({
  platform: z.enum(['github', 'gitlab', 'gitea', 'bitbucket', 'bitbucket-server', 'azure-devops']),
  repoFullName: z.string().min(1),
  prNumber: z.int().min(1),
  prBranch: z.string(),
  baseBranch: z.string(),
  headSha: z.string(),
  prTitle: z.string(),
  commentId: z.string(),
  commentType: z.enum(['issue_comment', 'review_comment', 'review', 'lifecycle']),
  authorUsername: z.string(),
  authorName: z.string().optional(),
  body: z.string(),
  filePath: z.string().optional(),
  line: z.int().optional(),
  side: z.enum(['LEFT', 'RIGHT']).optional(),
  diffHunk: z.string().optional(),
  discussionId: z.string().optional(),
  cloneUrl: z.string(),
  deliveryId: z.string(),
  eventType: z.enum(['comment', 'pr_opened', 'pr_push', 'pr_reopened', 'pr_ready_for_review']),
});

const jobPayload = z.object({
  version: z.literal(1),
  jobId: z.string().min(1),
  botType: z.enum(['worker', 'reviewer']),
  comment: reviewComment,
  prompt: z.string(),
  enqueuedAt: z.string(),
});

/**
 * Parses and validates a JobPayload from JSON text.
 * @throws UsageError naming the first invalid field (exit code 2 is not used by run-job: it exits 1).
 */
export function parseJobPayload(text: string): JobPayload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('job payload is not valid JSON');
  }
  const parsed = jobPayload.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `invalid job payload: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data as JobPayload;
}
