/**
 * GitLab's side of progress on a merge request (CONTRACT §18): a commit status named `reviewbot` on
 * the head SHA, "Set the pipeline status of a commit" (`POST /projects/:id/statuses/:sha`, commits.md):
 * `running` when the job starts, then `success` or `failed`. Each call carries `ref` (the source
 * branch is not known here, so none) and `name`; GitLab moves the same running status to its end
 * state, and starts a new one for the next job once it is finished. The verdict gate (CONTRACT §21)
 * is a status of its own, named `reviewbot/verdict`, set straight to `success` or `failed`.
 */
import {
  GATE_STATUS_NAME,
  type Platform,
  type ProgressConclusion,
  type ProgressHandle,
  type ProgressLimits,
  type ProgressTarget,
} from '../types.js';
import type { GitLabClient } from './client.js';
import type { GitLabCall } from './memory-api.js';

/** The status' `name` (CONTRACT §18). */
export const PROGRESS_NAME = 'reviewbot';

/**
 * GitLab's limits: "Set the pipeline status of a commit" takes a `description` of at most 255
 * characters; a commit status has no place for longer text (`summary` is dropped).
 */
export const GITLAB_PROGRESS_LIMITS: ProgressLimits = { description: 255, summary: 0 };

function endState(conclusion: ProgressConclusion): 'success' | 'failed' {
  return conclusion === 'failure' ? 'failed' : 'success';
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the GitLab platform. */
export function gitLabProgressMethods(
  client: GitLabClient,
  call: GitLabCall,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  const postStatus = (
    target: ProgressTarget,
    name: string,
    state: 'running' | 'success' | 'failed',
    description: string,
    url?: string,
  ) => {
    const endpoint = `projects/${encodeURIComponent(target.repoFullName)}/statuses/${target.headSha}`;
    const what = `set the ${name} status on ${target.repoFullName}@${target.headSha.slice(0, 12)}`;
    return call(what, () =>
      client.api.post(endpoint, {
        body: { state, name, description, ...(url ? { target_url: url } : {}) },
        signal: AbortSignal.timeout(client.timeoutMs),
      }),
    );
  };
  return {
    progressLimits: GITLAB_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      const state = report.state === 'failure' ? 'failed' : 'success';
      await postStatus(target, GATE_STATUS_NAME, state, report.description, report.url ?? target.prUrl);
    },
    async startProgress(target, report): Promise<ProgressHandle> {
      const post = (state: 'running' | 'success' | 'failed', description: string, url?: string) =>
        postStatus(target, PROGRESS_NAME, state, description, url);
      await post('running', report.description, report.url);
      return {
        finish: async (conclusion, done) => {
          await post(endState(conclusion), done.description, done.url);
        },
      };
    },
  };
}
