/**
 * The §18 progress status on Azure DevOps: a pull request status (`POST …/pullRequests/{id}/statuses`;
 * Microsoft Learn, "Pull Request Statuses - Create") with `context {genre: "reviewbot", name:
 * "review"}`, `pending` when the job starts, then `succeeded` or `failed` (a new status of the same
 * context replaces the shown one), on the latest iteration (`iterationId`), `targetUrl` the pull
 * request's web page. `GitStatusState` (GitInterfaces.ts): pending 1, succeeded 2, failed 3. The
 * verdict gate (CONTRACT §21) is a status of its own, context `{genre: "reviewbot", name:
 * "verdict"}`, `succeeded` or `failed`.
 */
import type {
  Platform,
  ProgressConclusion,
  ProgressLimits,
  ProgressReport,
  ProgressTarget,
} from '../types.js';
import type { AzureClient } from './client.js';
import type { PlatformCall as AzureCall } from '../http/index.js';
import { latestIteration } from './iterations.js';
import { splitRepo } from './threads.js';

/**
 * Lengths a status accepts: Azure DevOps documents none for `description`; its web UI shows one
 * line, so the GitLab-like 255 is kept. Statuses have no place for a summary.
 */
export const AZURE_PROGRESS_LIMITS: ProgressLimits = { description: 255, summary: 0 };

const STATE = { pending: 1, succeeded: 2, failed: 3 } as const;

function stateOf(conclusion: ProgressConclusion): 2 | 3 {
  return conclusion === 'failure' ? STATE.failed : STATE.succeeded;
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the Azure DevOps platform. */
export function azureProgress(
  client: AzureClient,
  call: AzureCall,
  prUrl: (repo: string, id: number) => Promise<string>,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  async function post(
    target: ProgressTarget,
    state: number,
    report: Pick<ProgressReport, 'description'>,
    statusName = 'review',
  ): Promise<void> {
    const { repoFullName: repo, prNumber: id } = target;
    const { project, repo: name } = splitRepo(repo);
    const [iteration, url] = await Promise.all([
      latestIteration(client, call, repo, id),
      target.prUrl ? Promise.resolve(target.prUrl) : prUrl(repo, id),
    ]);
    await call(`set the reviewbot/${statusName} status on ${repo}#${id}`, () =>
      client.send((git) =>
        git.createPullRequestStatus(
          {
            state,
            description: report.description,
            context: { genre: 'reviewbot', name: statusName },
            targetUrl: url,
            iterationId: iteration.id,
          },
          name,
          id,
          project,
        ),
      ),
    );
  }
  return {
    progressLimits: AZURE_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      await post(target, report.state === 'failure' ? STATE.failed : STATE.succeeded, report, 'verdict');
    },
    async startProgress(target, report) {
      await post(target, STATE.pending, report);
      return { finish: (conclusion, final) => post(target, stateOf(conclusion), final) };
    },
  };
}
