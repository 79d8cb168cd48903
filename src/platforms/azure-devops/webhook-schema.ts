/**
 * Zod schemas of the Azure DevOps service-hook payload fields reviewbot reads (Microsoft Learn,
 * "Service hooks events": every delivery carries `id` (a GUID), `eventType` and `resource`;
 * `git.pullrequest.created`/`updated` carry a `GitPullRequest` as `resource`;
 * `ms.vss-code.git-pullrequest-comment-event` carries `resource.comment` and
 * `resource.pullRequest`). Lenient where Azure DevOps is (unknown keys dropped); strict where a value
 * goes on to an API URL, a workspace path or a git command: project and repository names by Azure
 * DevOps' rules (`names.ts`), ids, 40-hex commit ids, `refs/heads/` branch names.
 */
import { z } from 'zod';
import { isBranchName, isPrNumber } from '../git-names.js';
import { isAzureName, isGuid } from './names.js';

/** An identity reference (`IdentityRef`): reviewbot compares its `uniqueName`. */
export const AzureIdentity = z.object({
  id: z.string().refine(isGuid, 'not an identity id').optional(),
  uniqueName: z.string().min(1).max(256).optional(),
  displayName: z.string().max(256).optional(),
});

const Ref = z
  .string()
  .refine(
    (r) => r.startsWith('refs/heads/') && isBranchName(r.slice('refs/heads/'.length)),
    'not a branch ref',
  );

const Commit = z.object({ commitId: z.string().regex(/^[0-9a-f]{40}$/, 'not a 40-hex commit id') });

/** The `GitPullRequest` fields read. */
export const AzurePullRequest = z.object({
  pullRequestId: z.number().refine(isPrNumber, 'not a pull request id (1..2147483647)'),
  title: z.string().max(4000).nullish(),
  status: z.string().max(40).optional(),
  createdBy: AzureIdentity.optional(),
  sourceRefName: Ref,
  targetRefName: Ref,
  lastMergeSourceCommit: Commit.optional(),
  repository: z.object({
    id: z.string().refine(isGuid, 'not a repository id').optional(),
    name: z.string().refine(isAzureName, 'not an Azure DevOps repository name'),
    project: z.object({ name: z.string().refine(isAzureName, 'not an Azure DevOps project name') }),
  }),
});

const Envelope = z.object({
  id: z.string().refine(isGuid, 'not an event id'),
  eventType: z.string().max(200),
});

/** A lifecycle event (`git.pullrequest.created`, `git.pullrequest.updated`). */
export const AzurePullRequestEvent = Envelope.extend({ resource: AzurePullRequest });

/** `ms.vss-code.git-pullrequest-comment-event`. */
export const AzureCommentEvent = Envelope.extend({
  resource: z.object({
    comment: z.object({
      id: z
        .number()
        .int()
        .positive()
        .max(2 ** 31 - 1),
      parentCommentId: z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1)
        .optional(),
      content: z.string().nullish(),
      commentType: z.string().max(40).optional(),
      author: AzureIdentity,
      _links: z.object({ threads: z.object({ href: z.string().max(2048) }).optional() }).optional(),
    }),
    pullRequest: AzurePullRequest,
  }),
});
