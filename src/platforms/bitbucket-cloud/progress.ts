/**
 * The §18 progress status on Bitbucket Cloud: a build status on the head commit,
 * `POST /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build` with key `reviewbot`,
 * `INPROGRESS` when the job starts, then `SUCCESSFUL` or `FAILED` (posting the same key again
 * updates it). Bitbucket requires `url`: the pull request's web page. The verdict gate (CONTRACT
 * §21) is a build status of its own, key `reviewbot-verdict` (name `reviewbot/verdict`),
 * `SUCCESSFUL` or `FAILED`.
 */
import {
  GATE_BUILD_KEY,
  GATE_STATUS_NAME,
  type Platform,
  type ProgressConclusion,
  type ProgressLimits,
  type ProgressReport,
  type ProgressTarget,
} from '../types.js';
import { repoParams, type BitbucketClient } from './client.js';
import type { PlatformCall as BitbucketCall } from '../http/index.js';

/**
 * Lengths the build status accepts: Bitbucket Cloud documents none for `description`; its web UI
 * shows one line, so the GitLab-like 255 is kept. Build statuses have no place for a summary.
 */
export const BITBUCKET_PROGRESS_LIMITS: ProgressLimits = { description: 255, summary: 0 };

/** The build state for a conclusion. */
function stateOf(conclusion: ProgressConclusion): 'SUCCESSFUL' | 'FAILED' {
  return conclusion === 'failure' ? 'FAILED' : 'SUCCESSFUL';
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the Bitbucket Cloud platform. */
export function bitbucketProgress(
  client: BitbucketClient,
  call: BitbucketCall,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  async function post(
    target: ProgressTarget,
    state: 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED',
    report: Pick<ProgressReport, 'description' | 'url'>,
    status = { key: 'reviewbot', name: 'reviewbot' },
  ): Promise<void> {
    const url =
      report.url ??
      target.prUrl ??
      `https://bitbucket.org/${target.repoFullName}/pull-requests/${target.prNumber}`;
    await call(`set the ${status.key} build status on ${target.headSha.slice(0, 12)}`, async () =>
      client.ok(
        await client.api.POST('/repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build', {
          params: { path: { ...repoParams(target.repoFullName), commit: target.headSha } },
          body: {
            type: 'commitstatus',
            key: status.key,
            name: status.name,
            state,
            description: report.description,
            url,
          },
        }),
      ),
    );
  }
  return {
    progressLimits: BITBUCKET_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      const state = report.state === 'failure' ? 'FAILED' : 'SUCCESSFUL';
      await post(target, state, report, { key: GATE_BUILD_KEY, name: GATE_STATUS_NAME });
    },
    async startProgress(target, report) {
      await post(target, 'INPROGRESS', report);
      return {
        finish: (conclusion, final) => post(target, stateOf(conclusion), final),
      };
    },
  };
}
