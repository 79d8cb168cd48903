/**
 * The `@gitbeaker/rest` resources the GitLab platform uses, sharing one requester (the shared
 * platform transport: retries, timeouts) and `PRIVATE-TOKEN` auth against `<GITLAB_URL>/api/v4`.
 * Only the resources needed are built: gitbeaker's all-in-one `Gitlab` class would construct some
 * two hundred.
 */
import {
  MergeRequestDiscussions,
  MergeRequestNoteAwardEmojis,
  MergeRequestNotes,
  MergeRequests,
  Projects,
  Users,
} from '@gitbeaker/rest';
import type { PlatformHttpNames } from '../http/index.js';
import type { GitLabSettings } from './settings.js';
import {
  createGitLabRequesterFn,
  type GitbeakerRequesterFn,
  type GitLabRequesterOptions,
} from './requester.js';

/**
 * How GitLab failures read (`platformCall`): a missing, expired or revoked token is a 401
 * (`{"message":"401 Unauthorized"}`).
 */
export const GITLAB_HTTP: PlatformHttpNames = {
  platform: 'GitLab',
  urlVariable: 'GITLAB_URL',
  credentialsHint: 'GITLAB_TOKEN (expired or revoked?) and GITLAB_URL',
  forbiddenHint: 'forbidden: the token needs the `api` scope and at least Reporter access to the project',
};

/** The gitbeaker resources of one GitLab instance and token. */
export interface GitLabClient {
  mergeRequests: InstanceType<typeof MergeRequests>;
  notes: InstanceType<typeof MergeRequestNotes>;
  discussions: InstanceType<typeof MergeRequestDiscussions>;
  noteAwardEmojis: InstanceType<typeof MergeRequestNoteAwardEmojis>;
  projects: InstanceType<typeof Projects>;
  users: InstanceType<typeof Users>;
  /**
   * The requester at the API root (`<url>/api/v4/`), for calls gitbeaker encodes badly: its
   * `MergeRequestDiscussions.create` form-encodes `position` with an unescaped `qs` string split on
   * `&`, which corrupts file paths containing `&`. Answers `{ body, headers, status }`.
   */
  api: ReturnType<GitbeakerRequesterFn>;
  /** Time one attempt may take, ms (the transport applies it; callers of `api` may add a deadline). */
  timeoutMs: number;
}

/** Options of `createGitLabClient`. */
export interface GitLabClientOptions extends GitLabRequesterOptions {
  settings: GitLabSettings;
}

/** Builds the resources for `settings` (no request is sent). */
export function createGitLabClient(options: GitLabClientOptions): GitLabClient {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const { settings, ...http } = options;
  const requesterFn = createGitLabRequesterFn({ ...http, timeoutMs });
  // No gitbeaker deadline over all attempts: the transport times each attempt and bounds its waits.
  const common = { host: settings.url, token: settings.token, queryTimeout: null, requesterFn };
  const token = options.settings.token;
  return {
    mergeRequests: new MergeRequests(common),
    notes: new MergeRequestNotes(common),
    discussions: new MergeRequestDiscussions(common),
    noteAwardEmojis: new MergeRequestNoteAwardEmojis(common),
    projects: new Projects(common),
    users: new Users(common),
    api: requesterFn({
      url: `${options.settings.url}/api/v4/`,
      headers: {},
      authHeaders: { 'private-token': () => Promise.resolve(token) },
    }),
    timeoutMs,
  };
}
