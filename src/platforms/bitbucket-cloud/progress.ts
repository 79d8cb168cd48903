/**
 * The §18 progress status on Bitbucket Cloud: a build status on the head commit,
 * `POST /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build` with key `reviewbot`,
 * `INPROGRESS` when the job starts, then `SUCCESSFUL` or `FAILED` (posting the same key again
 * updates it). Bitbucket requires `url`: the pull request's web page.
 */
import type {
  Platform,
  ProgressConclusion,
  ProgressLimits,
  ProgressReport,
  ProgressTarget,
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

/** `progressLimits` and `startProgress` of the Bitbucket Cloud platform. */
export function bitbucketProgress(
  client: BitbucketClient,
  call: BitbucketCall,
): Required<Pick<Platform, 'progressLimits' | 'startProgress'>> {
  async function post(
    target: ProgressTarget,
    state: 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED',
    report: ProgressReport,
  ): Promise<void> {
    const url =
      report.url ??
      target.prUrl ??
      `https://bitbucket.org/${target.repoFullName}/pull-requests/${target.prNumber}`;
    await call(`set the reviewbot build status on ${target.headSha.slice(0, 12)}`, async () =>
      client.ok(
        await client.api.POST('/repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build', {
          params: { path: { ...repoParams(target.repoFullName), commit: target.headSha } },
          body: {
            type: 'commitstatus',
            key: 'reviewbot',
            name: 'reviewbot',
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
    async startProgress(target, report) {
      await post(target, 'INPROGRESS', report);
      return {
        finish: (conclusion, final) => post(target, stateOf(conclusion), final),
      };
    },
  };
}
