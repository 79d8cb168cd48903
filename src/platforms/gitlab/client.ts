/**
 * The `@gitbeaker/rest` resources the GitLab platform uses, sharing one requester (injectable fetch,
 * bounded retries) and `PRIVATE-TOKEN` auth against `<GITLAB_URL>/api/v4`. Only the resources needed
 * are built: gitbeaker's all-in-one `Gitlab` class would construct some two hundred.
 */
import {
  MergeRequestDiscussions,
  MergeRequestNoteAwardEmojis,
  MergeRequestNotes,
  MergeRequests,
  Projects,
  Users,
} from '@gitbeaker/rest';
import type { GitLabSettings } from './settings.js';
import {
  createGitLabRequesterFn,
  type GitbeakerRequesterFn,
  type GitLabRequesterOptions,
} from './requester.js';

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
  /** Per-request timeout, ms, for `api` calls (gitbeaker resources apply it themselves). */
  timeoutMs: number;
}

/** Options of `createGitLabClient`. */
export interface GitLabClientOptions extends GitLabRequesterOptions {
  settings: GitLabSettings;
  /** Per-request timeout, ms (default 60 000). */
  timeoutMs?: number;
}

/** Builds the resources for `settings` (no request is sent). */
export function createGitLabClient(options: GitLabClientOptions): GitLabClient {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const requesterFn = createGitLabRequesterFn(options);
  const common = {
    host: options.settings.url,
    token: options.settings.token,
    queryTimeout: timeoutMs,
    requesterFn,
  };
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
