/**
 * Real GitHub webhook payloads (from `@octokit/webhooks-examples`) adapted to the test repositories:
 * repository, pull request number, comment body and author are replaced, everything else is GitHub's.
 */
import { createRequire } from 'node:module';
import type { GitHubPullRequest } from '../support/fake-github/index.js';

interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}

const require = createRequire(import.meta.url);
const groups = require('@octokit/webhooks-examples/api.github.com/index.json') as ExampleGroup[];

function example(event: string, pick: (e: Record<string, unknown>) => boolean): Record<string, unknown> {
  const found = groups.find((g) => g.name === event)?.examples.find(pick);
  if (!found) throw new Error(`no ${event} example matches`);
  return structuredClone(found);
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => value as Json;

function adaptRepository(payload: Json, repoFullName: string): void {
  const [owner, name] = repoFullName.split('/') as [string, string];
  const repository = obj(payload.repository);
  repository.full_name = repoFullName;
  repository.name = name;
  obj(repository.owner).login = owner;
}

let nextId = 9_000_000;

/** Options shared by comment payloads. */
export interface CommentPayloadOptions {
  repo: string;
  pr: number;
  body: string;
  login: string;
  commentId?: number;
}

/** An `issue_comment` `created` payload on pull request `pr`. */
export function issueCommentPayload(o: CommentPayloadOptions): Json {
  // The examples' comments are on plain issues; a comment on a pull request differs by
  // `issue.pull_request`, as GitHub sends it.
  const payload = example('issue_comment', (e) => e.action === 'created');
  adaptRepository(payload, o.repo);
  const issue = obj(payload.issue);
  issue.number = o.pr;
  const api = `https://api.github.com/repos/${o.repo}`;
  issue.pull_request = {
    url: `${api}/pulls/${o.pr}`,
    html_url: `https://github.com/${o.repo}/pull/${o.pr}`,
    diff_url: `https://github.com/${o.repo}/pull/${o.pr}.diff`,
    patch_url: `https://github.com/${o.repo}/pull/${o.pr}.patch`,
    merged_at: null,
  };
  const comment = obj(payload.comment);
  comment.id = o.commentId ?? nextId++;
  comment.body = o.body;
  obj(comment.user).login = o.login;
  obj(payload.sender).login = o.login;
  return payload;
}

/** A `pull_request_review_comment` `created` payload on `path:line` of the fake's pull request. */
export function reviewCommentPayload(
  o: CommentPayloadOptions & {
    pullRequest: GitHubPullRequest;
    path: string;
    line: number;
    inReplyTo?: number;
  },
): Json {
  const payload = example('pull_request_review_comment', (e) => e.action === 'created');
  adaptRepository(payload, o.repo);
  payload.pull_request = structuredClone(o.pullRequest);
  const comment = obj(payload.comment);
  comment.id = o.commentId ?? nextId++;
  comment.body = o.body;
  comment.path = o.path;
  comment.line = o.line;
  comment.side = 'RIGHT';
  if (o.inReplyTo !== undefined) comment.in_reply_to_id = o.inReplyTo;
  else delete comment.in_reply_to_id;
  obj(comment.user).login = o.login;
  obj(payload.sender).login = o.login;
  return payload;
}

/** A `pull_request` payload (`opened`, `synchronize`, ...) carrying the fake's pull request. */
export function pullRequestPayload(
  action: string,
  pullRequest: GitHubPullRequest,
  repo: string,
  login: string,
): Json {
  const payload = example('pull_request', (e) => e.action === 'opened');
  payload.action = action;
  adaptRepository(payload, repo);
  payload.number = pullRequest.number;
  payload.pull_request = structuredClone(pullRequest);
  obj(payload.sender).login = login;
  return payload;
}
