/**
 * Gitea's (and Forgejo's) side of progress on a pull request (CONTRACT §18): a commit status with
 * context `reviewbot` on the head SHA, "Create a commit status" (`POST
 * /repos/{owner}/{repo}/statuses/{sha}`, operation `repoCreateStatus`): `pending` when the job
 * starts, then `success` or `failure`. Gitea keeps every status it is sent and shows the newest of
 * each context, so the end state replaces the pending one on the pull request's commit list. The
 * verdict gate (CONTRACT §21) is a status of its own, context `reviewbot/verdict`, `success` or
 * `failure`.
 */
import {
  GATE_STATUS_NAME,
  type Platform,
  type ProgressConclusion,
  type ProgressHandle,
  type ProgressLimits,
} from '../types.js';
import type { GiteaClient } from './client.js';
import type { GiteaCall } from './submit-review.js';

/** The status' `context` (CONTRACT §18). */
export const PROGRESS_NAME = 'reviewbot';

/**
 * Gitea's limits: the API does not bound `description` (`CreateStatusOption` has no length rule;
 * `models/git/commit_status.go` stores it as `TEXT`, 65 535 bytes on MySQL), but the web UI shows
 * it on one line next to the commit, so reviewbot keeps it to 255 characters, as on GitLab. A
 * commit status has no place for longer text (`summary` is dropped).
 */
export const GITEA_PROGRESS_LIMITS: ProgressLimits = { description: 255, summary: 0 };

/** Commit statuses have no `neutral`: a finished review is a `success`. */
function endState(conclusion: ProgressConclusion): 'success' | 'failure' {
  return conclusion === 'failure' ? 'failure' : 'success';
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the Gitea platform. */
export function giteaProgressMethods(
  client: GiteaClient,
  call: GiteaCall,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  return {
    progressLimits: GITEA_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      const link = report.url ?? target.prUrl;
      await call(`set the verdict gate on ${target.repoFullName}@${target.headSha.slice(0, 12)}`, () =>
        client.repoCreateStatus(target.repoFullName, target.headSha, {
          state: report.state,
          context: GATE_STATUS_NAME,
          description: report.description,
          ...(link ? { target_url: link } : {}),
        }),
      );
    },
    async startProgress(target, report): Promise<ProgressHandle> {
      const what = `report progress on ${target.repoFullName}@${target.headSha.slice(0, 12)}`;
      // The link: the posted review when there is one, else the pull request.
      const post = (state: 'pending' | 'success' | 'failure', description: string, url?: string) => {
        const link = url ?? target.prUrl;
        return call(what, () =>
          client.repoCreateStatus(target.repoFullName, target.headSha, {
            state,
            context: PROGRESS_NAME,
            description,
            ...(link ? { target_url: link } : {}),
          }),
        );
      };
      await post('pending', report.description, report.url);
      return {
        finish: async (conclusion, done) => {
          await post(endState(conclusion), done.description, done.url);
        },
      };
    },
  };
}
