/**
 * Wire-level pieces of the fake Azure DevOps: the resource locations the `git` area answers to
 * `OPTIONS <collection>/_apis/git` (route templates as in Microsoft Learn's REST reference URLs;
 * `azure-devops-node-api` builds every request URL from them), enum names (GitInterfaces.ts: the
 * service writes enums as strings, the library sends numbers), error and collection shapes.
 */
import type { DiffFile } from '../fake-github/diff.js';
import type { AddPullRequest, StoredStatus, StoredThread } from './types.js';

export const LOCATIONS = [
  [
    '9946fd70-0d40-406e-b686-b4744cbbcc37',
    'pullRequests',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{pullRequestId}',
  ],
  [
    'd43911ee-6958-46b0-a42b-8445b8a0d004',
    'iterations',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{iterationId}',
  ],
  [
    '4216bdcf-b6b1-4d59-8b82-c34cc183fc8b',
    'changes',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/iterations/{iterationId}/{resource}',
  ],
  [
    'fb93c0db-47ed-4a31-8c20-47552878fb44',
    'items',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{*path}',
  ],
  [
    'ab6e2e5d-a0b7-4153-b64a-a4efe0d49449',
    'threads',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{threadId}',
  ],
  [
    '965a3ec7-5ed8-455a-bdcb-835a5ea7fe7b',
    'comments',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/threads/{threadId}/{resource}/{commentId}',
  ],
  [
    'b5f6bb4f-8d1e-4d79-8d11-4c9172c99c35',
    'statuses',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}/{statusId}',
  ],
  [
    '7cf2abb6-c964-4f7e-9872-f78c66e72e9c',
    'mergeBases',
    '{project}/_apis/{area}/repositories/{repositoryNameOrId}/commits/{commitId}/{resource}',
  ],
  [
    '615588d5-c0c7-4b88-88f8-e625306446e8',
    'diffs',
    '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/commits',
  ],
  [
    '52823034-34a8-4576-922c-8d8b77e9e4c4',
    'commits',
    '{project}/_apis/{area}/repositories/{repositoryId}/pullRequests/{pullRequestId}/{resource}',
  ],
].map(([id, resourceName, routeTemplate]) => ({
  id,
  area: 'git',
  resourceName,
  routeTemplate,
  resourceVersion: 1,
  minVersion: '1.0',
  maxVersion: '7.2',
  releasedVersion: '7.1',
}));

export const THREAD_STATUS = ['unknown', 'active', 'fixed', 'wontFix', 'closed', 'byDesign', 'pending'];
export const STATUS_STATE = ['notSet', 'pending', 'succeeded', 'failed', 'error', 'notApplicable'];
/** `CommentType` (GitInterfaces.ts). */
export const COMMENT_TYPE = ['unknown', 'text', 'codeChange', 'system'];

export interface Iteration {
  id: number;
  source: string;
  target: string;
  common: string;
}
export interface Pull extends AddPullRequest {
  repoId: string;
  threads: StoredThread[];
  statuses: StoredStatus[];
  iterations: Iteration[];
}
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  /** Set on an item's content: which file at which commit (recorded as an `ItemRead`). */
  item?: { path: string; version: string };
}

/**
 * An error as Azure DevOps answers it: a `WrappedException` body (`$id`, `innerException`,
 * `message`, `typeName`, `typeKey`, `errorCode`, `eventId`).
 */
export const error = (
  status: number,
  message: string,
  typeKey = 'InvalidArgumentValueException',
): Answer => ({
  status,
  body: {
    $id: '1',
    innerException: null,
    message,
    typeName: `Microsoft.TeamFoundation.SourceControl.WebServer.${typeKey}, Microsoft.TeamFoundation.SourceControl.WebServer`,
    typeKey,
    errorCode: 0,
    eventId: 3000,
  },
});
export const wrap = (value: unknown[]): Answer => ({ status: 200, body: { count: value.length, value } });
/** The enum member's name for `v`, given by number or by name in any case (as the service reads it). */
export const enumName = (names: string[], v: unknown) =>
  typeof v === 'number'
    ? (names[v] ?? String(v))
    : (names.find((n) => n.toLowerCase() === String(v).toLowerCase()) ?? String(v));

export function changeType(f: DiffFile): string {
  if (f.status === 'added') return 'add';
  if (f.status === 'removed') return 'delete';
  if (f.status === 'renamed') return f.additions + f.deletions > 0 ? 'edit, rename' : 'rename';
  return 'edit';
}
