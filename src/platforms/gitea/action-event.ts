/**
 * The event of a Gitea Actions or Forgejo Actions run, turned into what the reviewbot Action needs
 * (the same `ActionEvent` as on GitHub). The runner (act_runner, forgejo-runner) sets the GitHub
 * variables (`GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`, `GITHUB_SERVER_URL`, `GITHUB_API_URL` =
 * `<server>/api/v1`, `GITHUB_TOKEN`) plus `GITEA_ACTIONS=true` (Forgejo: `FORGEJO_ACTIONS=true`);
 * the event file holds Gitea's webhook payload (`services/actions/notifier.go`: `PullRequestPayload`,
 * `IssueCommentPayload` of `modules/structs`), not GitHub's: no `author_association`, so who may
 * start a review by comment is read from `repository.permissions`, which Gitea fills with the
 * commenter's own permission on the repository (`GetUserRepoPermission(repo, doer)`). Pure; never throws.
 */
import { z } from 'zod';
import { describeEventIssues, type ActionEvent } from '../action-event.js';
import { isGiteaFullName } from './names.js';
import { GiteaUser } from './webhook-schema.js';

/** True when the environment is a Gitea Actions or Forgejo Actions job. */
export function isGiteaActions(env: NodeJS.ProcessEnv): boolean {
  if (env.GITEA_ACTIONS === 'true' || env.FORGEJO_ACTIONS === 'true') return true;
  // Runners that set neither still point the GitHub API variable at Gitea's `/api/v1`.
  return /\/api\/v1\/?$/.test(env.GITHUB_API_URL ?? '');
}

/**
 * The Gitea instance URL of the job: `GITHUB_SERVER_URL`, else `GITHUB_API_URL` without `/api/v1`;
 * undefined when neither is set. A trailing slash is dropped.
 */
export function giteaServerUrl(env: NodeJS.ProcessEnv): string | undefined {
  const server = env.GITHUB_SERVER_URL || env.GITHUB_API_URL?.replace(/\/api\/v1\/?$/, '');
  return server ? server.replace(/\/+$/, '') : undefined;
}

const RepoRef = z.object({ full_name: z.string().refine(isGiteaFullName, 'not a Gitea owner/repo name') });

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
  comment: z.object({ body: z.string().nullish(), user: GiteaUser.nullish() }),
  repository: RepoRef.extend({
    permissions: z.object({ admin: z.boolean().nullish(), push: z.boolean().nullish() }).nullish(),
  }),
  is_pull: z.boolean().nullish(),
});

/**
 * Reads a Gitea/Forgejo Actions event.
 * - `pull_request` (any action but `closed`) → the pull request, `isFork` when the head repository
 *   is another one (or deleted);
 * - `issue_comment` on a pull request → the comment, `trusted` when its author may write to the
 *   repository (`repository.permissions.push` or `admin`);
 * - anything else → ignored with the reason.
 * @param eventName `GITHUB_EVENT_NAME`.
 * @param payload the parsed JSON of `GITHUB_EVENT_PATH`.
 */
export function parseGiteaActionEvent(eventName: string, payload: unknown): ActionEvent {
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
    const { issue, comment, repository, is_pull: isPull } = parsed.data;
    if (!issue.pull_request && !isPull) {
      return { kind: 'ignored', reason: `#${issue.number} is an issue, not a pull request` };
    }
    const permissions = repository.permissions;
    return {
      kind: 'comment',
      repoFullName: repository.full_name,
      prNumber: issue.number,
      authorLogin: comment.user?.login ?? '',
      trusted: permissions?.push === true || permissions?.admin === true,
      body: comment.body ?? '',
    };
  }
  return {
    kind: 'ignored',
    reason: `the ${eventName || 'unknown'} event is not handled (use pull_request or issue_comment)`,
  };
}
