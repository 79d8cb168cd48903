/**
 * GitHub's side of progress on a pull request (CONTRACT §18): with App auth a check run named
 * `reviewbot` ("Create a check run" `POST /repos/{owner}/{repo}/check-runs` with `status:
 * in_progress`, then "Update a check run" `PATCH .../check-runs/{check_run_id}` with `conclusion`
 * and `output`); with a token, which cannot use the Checks API, a commit status ("Create a commit
 * status" `POST /repos/{owner}/{repo}/statuses/{sha}`, context `reviewbot`, `pending` then
 * `success`/`failure`).
 * The verdict gate (CONTRACT §21) goes the same two ways under the name `reviewbot/verdict`: a check
 * run created `completed` with conclusion `success` or `failure` (App), or a commit status.
 */
import {
  GATE_STATUS_NAME,
  type Platform,
  type ProgressConclusion,
  type ProgressHandle,
  type ProgressLimits,
} from '../types.js';
import type { GitHubClient } from './client.js';
import type { GitHubCall } from './memory-api.js';

/** The name of the check run and the context of the commit status (CONTRACT §18). */
export const PROGRESS_NAME = 'reviewbot';

/**
 * GitHub's limits: a commit status `description` longer than 140 characters is refused with 422
 * ("description is too long (maximum is 140 characters)"); the same bound is used for a check
 * run's `output.title`. `output.summary` is at most 65535 characters ("Create a check run",
 * `output.summary` **Maximum length**).
 */
export const GITHUB_PROGRESS_LIMITS: ProgressLimits = { description: 140, summary: 65_535 };

function splitRepo(fullName: string): { owner: string; repo: string } {
  const [owner, repo, ...rest] = fullName.split('/');
  if (!owner || !repo || rest.length > 0) throw new Error(`not a GitHub repository name: ${fullName}`);
  return { owner, repo };
}

/** GitHub's timestamp form, `YYYY-MM-DDTHH:MM:SSZ`. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Commit statuses have no `neutral`: a finished review is a `success`. */
function statusState(conclusion: ProgressConclusion): 'success' | 'failure' {
  return conclusion === 'failure' ? 'failure' : 'success';
}

/** `progressLimits`, `startProgress` and `setGateStatus` of the GitHub platform; `checkRuns` = App auth. */
export function gitHubProgressMethods(
  client: GitHubClient,
  call: GitHubCall,
  checkRuns: boolean,
): Required<Pick<Platform, 'progressLimits' | 'startProgress' | 'setGateStatus'>> {
  return {
    progressLimits: GITHUB_PROGRESS_LIMITS,
    async setGateStatus(target, report) {
      const repo = splitRepo(target.repoFullName);
      const what = `set the verdict gate on ${target.repoFullName}@${target.headSha.slice(0, 12)}`;
      if (checkRuns) {
        const at = now();
        await call(what, () =>
          client.rest.checks.create({
            ...repo,
            name: GATE_STATUS_NAME,
            head_sha: target.headSha,
            status: 'completed',
            conclusion: report.state,
            started_at: at,
            completed_at: at,
            ...(report.url ? { details_url: report.url } : {}),
            output: { title: report.description, summary: report.summary ?? report.description },
          }),
        );
        return;
      }
      await call(what, () =>
        client.rest.repos.createCommitStatus({
          ...repo,
          sha: target.headSha,
          state: report.state,
          context: GATE_STATUS_NAME,
          description: report.description,
          ...(report.url ? { target_url: report.url } : {}),
        }),
      );
    },
    async startProgress(target, report): Promise<ProgressHandle> {
      const repo = splitRepo(target.repoFullName);
      const what = `report progress on ${target.repoFullName}@${target.headSha.slice(0, 12)}`;
      if (checkRuns) {
        const { data } = await call(what, () =>
          client.rest.checks.create({
            ...repo,
            name: PROGRESS_NAME,
            head_sha: target.headSha,
            status: 'in_progress',
            started_at: now(),
            output: { title: report.description, summary: report.summary ?? report.description },
          }),
        );
        return {
          finish: async (conclusion, done) => {
            await call(what, () =>
              client.rest.checks.update({
                ...repo,
                check_run_id: data.id,
                status: 'completed',
                conclusion,
                completed_at: now(),
                ...(done.url ? { details_url: done.url } : {}),
                output: { title: done.description, summary: done.summary ?? done.description },
              }),
            );
          },
        };
      }
      const post = (state: 'pending' | 'success' | 'failure', text: string, url?: string) =>
        call(what, () =>
          client.rest.repos.createCommitStatus({
            ...repo,
            sha: target.headSha,
            state,
            context: PROGRESS_NAME,
            description: text,
            ...(url ? { target_url: url } : {}),
          }),
        );
      await post('pending', report.description, report.url);
      return {
        finish: async (conclusion, done) => {
          await post(statusState(conclusion), done.description, done.url);
        },
      };
    },
  };
}
