/**
 * The §18 progress status on Bitbucket Data Center: a build status on the head commit,
 * `POST /rest/api/1.0/projects/{KEY}/repos/{slug}/commits/{sha}/builds` (Atlassian REST "Store a
 * build status", Data Center 7.4+; `RestBuildStatusSetRequest`: `key`, `state` and `url`
 * required) with key `reviewbot`, `INPROGRESS` when the job starts, then `SUCCESSFUL` or `FAILED`
 * (posting the same key again updates it). `url` is the pull request's web page. The verdict gate
 * (CONTRACT §21) is a build status of its own, key `reviewbot-verdict` (name `reviewbot/verdict`),
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
import { repoParams, type BitbucketServerClient } from './client.js';
import type { PlatformCall as BitbucketServerCall } from '../http/index.js';

/**
 * Lengths the build status accepts: Data Center stores `description` in a 255-character column
 * (the same as `name`); build statuses have no place for a summary.
 */
export const BITBUCKET_SERVER_PROGRESS_LIMITS: ProgressLimits = { description: 255, summary: 0 };

/** The build state for a conclusion. */
function stateOf(conclusion: ProgressConclusion): 'SUCCESSFUL' | 'FAILED' {
  return conclusion === 'failure' ? 'FAILED' : 'SUCCESSFUL';
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the Data Center platform. */
export function serverProgress(
  client: BitbucketServerClient,
  call: BitbucketServerCall,
  prUrl: (repo: string, id: number) => string,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  async function post(
    target: ProgressTarget,
    state: 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED',
    report: Pick<ProgressReport, 'description' | 'url'>,
    status = { key: 'reviewbot', name: 'reviewbot' },
  ): Promise<void> {
    const url = report.url ?? target.prUrl ?? prUrl(target.repoFullName, target.prNumber);
    await call(`set the ${status.key} build status on ${target.headSha.slice(0, 12)}`, async () =>
      client.ok(
        await client.api.POST(
          '/api/latest/projects/{projectKey}/repos/{repositorySlug}/commits/{commitId}/builds',
          {
            params: { path: { ...repoParams(target.repoFullName), commitId: target.headSha } },
            body: { key: status.key, name: status.name, state, description: report.description, url },
          },
        ),
      ),
    );
  }
  return {
    progressLimits: BITBUCKET_SERVER_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      const state = report.state === 'failure' ? 'FAILED' : 'SUCCESSFUL';
      await post(target, state, report, { key: GATE_BUILD_KEY, name: GATE_STATUS_NAME });
    },
    async startProgress(target, report) {
      await post(target, 'INPROGRESS', report);
      return { finish: (conclusion, final) => post(target, stateOf(conclusion), final) };
    },
  };
}
