/**
 * The event of a GitHub Actions run (`GITHUB_EVENT_NAME`, the JSON at `GITHUB_EVENT_PATH`), turned
 * into what the reviewbot Action needs: which pull request to review, whether it comes from a fork,
 * and for a comment who wrote it. Source: GitHub's "Events that trigger workflows" (`pull_request`,
 * `issue_comment`) and "Webhook events and payloads". `pull_request_target` is deliberately not
 * handled. Pure; never throws.
 */
import { z } from 'zod';
import { describeEventIssues, type ActionEvent } from '../action-event.js';
import { Account } from './webhook-schema.js';

/** Who may start a review by commenting (`author_association`, GitHub's CommentAuthorAssociation). */
export const TRUSTED_ASSOCIATIONS = ['OWNER', 'MEMBER', 'COLLABORATOR'] as const;

export type { ActionEvent };

const RepoRef = z.object({ full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/) });

const PullRequestEvent = z.object({
  action: z.string().nullish(),
  pull_request: z.object({
    number: z.int().positive(),
    head: z.object({ repo: RepoRef.nullish() }),
    base: z.object({ repo: RepoRef }),
  }),
  repository: RepoRef,
});

const IssueCommentEvent = z.object({
  issue: z.object({ number: z.int().positive(), pull_request: z.object({}).nullish() }),
  comment: z.object({
    body: z.string().nullish(),
    user: Account.nullish(),
    author_association: z.string().nullish(),
  }),
  repository: RepoRef,
});

/**
 * Reads the Action's event.
 * @param eventName `GITHUB_EVENT_NAME`.
 * @param payload the parsed JSON of `GITHUB_EVENT_PATH`.
 */
export function parseActionEvent(eventName: string, payload: unknown): ActionEvent {
  if (eventName === 'pull_request') {
    const parsed = PullRequestEvent.safeParse(payload);
    if (!parsed.success) {
      return { kind: 'ignored', reason: `the ${eventName} event lacks ${describeEventIssues(parsed.error)}` };
    }
    const { pull_request: pr, repository, action } = parsed.data;
    if (action === 'closed') return { kind: 'ignored', reason: `pull request #${pr.number} was closed` };
    const head = pr.head.repo?.full_name ?? null;
    return {
      kind: 'pull_request',
      repoFullName: repository.full_name,
      prNumber: pr.number,
      headRepoFullName: head,
      isFork: head === null || head.toLowerCase() !== pr.base.repo.full_name.toLowerCase(),
    };
  }
  if (eventName === 'issue_comment') {
    const parsed = IssueCommentEvent.safeParse(payload);
    if (!parsed.success) {
      return {
        kind: 'ignored',
        reason: `the issue_comment event lacks ${describeEventIssues(parsed.error)}`,
      };
    }
    const { issue, comment, repository } = parsed.data;
    if (!issue.pull_request)
      return { kind: 'ignored', reason: `#${issue.number} is an issue, not a pull request` };
    const association = comment.author_association ?? '';
    return {
      kind: 'comment',
      repoFullName: repository.full_name,
      prNumber: issue.number,
      authorLogin: comment.user?.login ?? '',
      trusted: (TRUSTED_ASSOCIATIONS as readonly string[]).includes(association),
      body: comment.body ?? '',
    };
  }
  return {
    kind: 'ignored',
    reason: `the ${eventName || 'unknown'} event is not handled (use pull_request or issue_comment)`,
  };
}
