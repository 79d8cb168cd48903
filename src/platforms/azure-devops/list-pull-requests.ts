/**
 * The repository's recently updated pull requests (CONTRACT §23, `reviewbot stats`) on Azure DevOps,
 * `GET {project}/_apis/git/repositories/{repo}/pullrequests` (REST "Pull Requests - Get Pull
 * Requests", `$top`/`$skip` paging). A `GitPullRequest` has no update time (only `creationDate` and
 * `closedDate`) and the listing cannot sort by one, so the listing is read in two server-filtered
 * parts: the open pull requests (`searchCriteria.status=active`: any of them may have changed), then
 * those closed since the date (`searchCriteria.status=all`, `queryTimeRangeType=closed`,
 * `minTime`). `updatedAt` is the closing time, for an open pull request its creation time.
 * `completed` counts as merged, `abandoned` as closed.
 */
import type { GitPullRequest } from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import type { Platform, PullRequestSummary } from '../types.js';
import type { AzureClient } from './client.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { splitRepo } from './threads.js';

/** Pull requests one page holds (`$top`). */
const PAGE_SIZE = 100;
/** Pages read at most per part. */
const MAX_PAGES = 100;

/** GitInterfaces `PullRequestStatus`: active 1, abandoned 2, completed 3, all 4. */
const STATUS = { active: 1, abandoned: 2, completed: 3, all: 4 } as const;
/** GitInterfaces `PullRequestTimeRangeType.Closed`. */
const CLOSED_TIME = 2;

function iso(date: unknown): string {
  if (date instanceof Date && !Number.isNaN(date.getTime())) return date.toISOString();
  return typeof date === 'string' ? date : new Date(0).toISOString();
}

function summaryOf(pr: GitPullRequest): PullRequestSummary | undefined {
  if (pr.pullRequestId === undefined) return undefined;
  const status = Number(pr.status);
  const state = status === STATUS.completed ? 'merged' : status === STATUS.abandoned ? 'closed' : 'open';
  return {
    number: pr.pullRequestId,
    state,
    updatedAt: iso(state === 'open' ? pr.creationDate : (pr.closedDate ?? pr.creationDate)),
  };
}

/** `listPullRequests` of the Azure DevOps platform. */
export function azureListPullRequests(
  client: AzureClient,
  call: AzureCall,
): Required<Pick<Platform, 'listPullRequests'>> {
  return {
    async listPullRequests(fullName, { updatedSince, max }) {
      const { project, repo } = splitRepo(fullName);
      return call(`list the pull requests of ${fullName}`, async () => {
        const out: PullRequestSummary[] = [];
        const seen = new Set<number>();
        const parts = [
          { status: STATUS.active },
          // The library writes a Date with toUTCString(); the service reads ISO 8601 as well.
          { status: STATUS.all, queryTimeRangeType: CLOSED_TIME, minTime: updatedSince.toISOString() },
        ];
        for (const criteria of parts) {
          for (let page = 0; page < MAX_PAGES; page++) {
            const pulls = await client.send((git) =>
              git.getPullRequests(repo, criteria as never, project, undefined, page * PAGE_SIZE, PAGE_SIZE),
            );
            for (const pr of pulls) {
              const summary = summaryOf(pr);
              if (!summary || seen.has(summary.number)) continue;
              if (summary.state !== 'open' && Date.parse(summary.updatedAt) < updatedSince.getTime())
                continue;
              if (out.length >= max) return { pullRequests: out, truncated: true };
              seen.add(summary.number);
              out.push(summary);
            }
            if (pulls.length < PAGE_SIZE) break;
          }
        }
        return { pullRequests: out, truncated: false };
      });
    },
  };
}
