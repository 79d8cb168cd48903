/**
 * GitHub's JSON shapes for users, repositories and Apps, as api.github.com returns them (types from
 * `@octokit/rest`, so a missing required field is a compile error; the fake also checks every
 * response against the OpenAPI description at run time). URLs point at the fake (`ctx.baseUrl`).
 */
import type { RestEndpointMethodTypes } from '@octokit/rest';
import type { FakeState, RepoRecord } from './state.js';
import { userId } from './state.js';

/** A user as embedded in other objects (`simple-user`). */
export type GitHubUser = RestEndpointMethodTypes['pulls']['get']['response']['data']['user'];
/** A repository as embedded in a pull request's head/base. */
export type GitHubRepository = RestEndpointMethodTypes['pulls']['get']['response']['data']['base']['repo'];
/** The authenticated user (`GET /user`). */
export type GitHubAuthenticatedUser =
  RestEndpointMethodTypes['users']['getAuthenticated']['response']['data'];
/** A GitHub App (`GET /app`). */
export type GitHubApp = RestEndpointMethodTypes['apps']['getAuthenticated']['response']['data'];

/** What shape builders need: the state (user ids) and the fake's base URL (no trailing slash). */
export interface ShapeContext {
  state: FakeState;
  baseUrl: string;
}

/** Fixed timestamp used for `created_at` of users, repositories and Apps. */
export const EPOCH = '2020-01-01T00:00:00Z';

/** `simple-user` for `login`; a login ending in `[bot]` is a `Bot`. */
export function userJson(ctx: ShapeContext, login: string): GitHubUser {
  const id = userId(ctx.state, login);
  const api = `${ctx.baseUrl}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: `U_${Buffer.from(`user:${id}`).toString('base64url')}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `${ctx.baseUrl}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

/** `private-user` for `GET /user`. */
export function authenticatedUserJson(ctx: ShapeContext, login: string): GitHubAuthenticatedUser {
  return {
    ...userJson(ctx, login),
    user_view_type: 'private',
    name: login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 1,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: EPOCH,
    updated_at: EPOCH,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
  };
}

/** `repository` for a known repository; `clone_url` is the fake's git URL. */
export function repoJson(ctx: ShapeContext, repo: RepoRecord): GitHubRepository {
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${ctx.baseUrl}/repos/${fullName}`;
  const html = `${ctx.baseUrl}/${fullName}`;
  return {
    id: repo.id,
    node_id: `R_${Buffer.from(`repo:${repo.id}`).toString('base64url')}`,
    name: repo.name,
    full_name: fullName,
    owner: userJson(ctx, repo.owner),
    private: false,
    html_url: html,
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://fake-github.invalid/${fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@fake-github.invalid:${fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${ctx.baseUrl}/git/${fullName}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: html,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 1,
    default_branch: repo.defaultBranch,
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: 'public',
    pushed_at: EPOCH,
    created_at: EPOCH,
    updated_at: EPOCH,
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    forks: 0,
    open_issues: 0,
    watchers: 0,
  };
}

/** Settings of the fake's GitHub App. */
export interface AppIdentity {
  appId: number;
  slug: string;
  installationId: number;
}

/** `integration` for `GET /app`. */
export function appJson(ctx: ShapeContext, app: AppIdentity, owner: string): GitHubApp {
  return {
    id: app.appId,
    slug: app.slug,
    client_id: `Iv1.${app.appId.toString(16).padStart(16, '0')}`,
    node_id: `A_${Buffer.from(`app:${app.appId}`).toString('base64url')}`,
    owner: userJson(ctx, owner),
    name: app.slug,
    description: 'reviewbot test App',
    external_url: `${ctx.baseUrl}/apps/${app.slug}`,
    html_url: `${ctx.baseUrl}/apps/${app.slug}`,
    created_at: EPOCH,
    updated_at: EPOCH,
    permissions: {
      contents: 'read',
      issues: 'write',
      pull_requests: 'write',
      checks: 'write',
      metadata: 'read',
    },
    events: ['issue_comment', 'pull_request', 'pull_request_review', 'pull_request_review_comment'],
    installations_count: 1,
  };
}
