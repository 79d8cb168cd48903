/**
 * GitLab webhook bodies for tests, written after the examples of GitLab's "Webhook events" page
 * ("Comment on a merge request", "Comment on an issue", "Merge request events"), with the fields
 * current GitLab adds to notes (`type`, `position`, `discussion_id`, `action`) and a project in a
 * nested group. Each call returns a fresh copy.
 */

const PROJECT = {
  id: 5,
  name: 'Gitlab Test',
  description: 'Aut reprehenderit ut est.',
  web_url: 'http://example.com/gitlab-org/platform/gitlab-test',
  avatar_url: null,
  git_ssh_url: 'git@example.com:gitlab-org/platform/gitlab-test.git',
  git_http_url: 'http://example.com/gitlab-org/platform/gitlab-test.git',
  namespace: 'Platform',
  visibility_level: 10,
  path_with_namespace: 'gitlab-org/platform/gitlab-test',
  default_branch: 'master',
  homepage: 'http://example.com/gitlab-org/platform/gitlab-test',
  url: 'http://example.com/gitlab-org/platform/gitlab-test.git',
  ssh_url: 'git@example.com:gitlab-org/platform/gitlab-test.git',
  http_url: 'http://example.com/gitlab-org/platform/gitlab-test.git',
};

const FORK = {
  ...PROJECT,
  id: 6,
  web_url: 'http://example.com/jsmith/gitlab-test',
  git_http_url: 'http://example.com/jsmith/gitlab-test.git',
  path_with_namespace: 'jsmith/gitlab-test',
};

const USER = {
  id: 1,
  name: 'Administrator',
  username: 'root',
  avatar_url: 'http://www.gravatar.com/avatar/e64c7d89f26bd1972efa854d13d7dd61?s=40&d=identicon',
  email: 'admin@example.com',
};

const LAST_COMMIT = {
  id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  message: 'fixed readme',
  title: 'Update file README.md',
  timestamp: '2012-01-03T23:36:29+02:00',
  url: 'http://example.com/gitlab-org/platform/gitlab-test/commits/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  author: { name: 'GitLab dev user', email: 'gitlabdev@dv6700.(none)' },
};

function mergeRequestObject() {
  return {
    id: 7,
    target_branch: 'markdown',
    source_branch: 'ms-viewport',
    source_project_id: 6,
    author_id: 8,
    assignee_id: 28,
    title: 'Tempora et eos debitis quae laborum et.',
    created_at: '2015-03-01 20:12:53 UTC',
    updated_at: '2015-03-21 18:27:27 UTC',
    milestone_id: 11,
    state: 'opened',
    merge_status: 'cannot_be_merged',
    target_project_id: 5,
    iid: 1,
    description: 'Et voluptas corrupti assumenda temporibus.',
    position: 0,
    labels: [],
    source: FORK,
    target: PROJECT,
    last_commit: LAST_COMMIT,
    work_in_progress: false,
    draft: false,
    assignee: { name: 'User1', username: 'user1', avatar_url: 'http://www.gravatar.com/avatar/x?s=40' },
    detailed_merge_status: 'checking',
  };
}

/** `Note Hook`: a plain comment on a merge request. */
export function mergeRequestNoteHook(): Record<string, unknown> {
  return structuredClone({
    object_kind: 'note',
    event_type: 'note',
    user: USER,
    project_id: 5,
    project: PROJECT,
    repository: {
      name: 'Gitlab Test',
      url: 'http://localhost/gitlab-org/platform/gitlab-test.git',
      description: 'Aut reprehenderit ut est.',
      homepage: 'http://example.com/gitlab-org/platform/gitlab-test',
    },
    object_attributes: {
      id: 1244,
      note: '@review-bot please review the parser',
      noteable_type: 'MergeRequest',
      author_id: 1,
      created_at: '2015-05-17 18:21:36 UTC',
      updated_at: '2015-05-17 18:21:36 UTC',
      project_id: 5,
      attachment: null,
      line_code: null,
      commit_id: '',
      noteable_id: 7,
      system: false,
      st_diff: null,
      type: null,
      position: null,
      discussion_id: '87805b7c09016a7058e91bdbe7b29d1f284a39e6',
      action: 'create',
      url: 'http://example.com/gitlab-org/platform/gitlab-test/-/merge_requests/1#note_1244',
    },
    merge_request: mergeRequestObject(),
  });
}

/** `Note Hook`: a reply in a diff thread (a DiffNote) on an unchanged line. */
export function diffNoteHook(): Record<string, unknown> {
  const hook = mergeRequestNoteHook() as { object_attributes: Record<string, unknown> };
  Object.assign(hook.object_attributes, {
    id: 1245,
    note: '@review-bot is this loop bounded?',
    type: 'DiffNote',
    line_code: '588440f66559714280628a4f9799f0c4eb880a4a_27_27',
    commit_id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    discussion_id: '6a9c1750b37d513a43987b574953fceb50b03ce7',
    position: {
      base_sha: 'b5d6e7b1613fca24d250fa8e5bc7bcc3dd6002ef',
      start_sha: '7c9c2ead8a320fb7ba0b4e234bd9529a2614e306',
      head_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      old_path: 'lib/parser.rb',
      new_path: 'lib/parser.rb',
      position_type: 'text',
      old_line: 27,
      new_line: 27,
      line_range: null,
    },
  });
  return hook;
}

/** `Note Hook`: a comment on an issue (not a merge request). */
export function issueNoteHook(): Record<string, unknown> {
  const hook = mergeRequestNoteHook() as Record<string, unknown> & {
    object_attributes: Record<string, unknown>;
  };
  Object.assign(hook.object_attributes, {
    id: 1241,
    note: '@review-bot hello',
    noteable_type: 'Issue',
    noteable_id: 92,
  });
  delete hook.merge_request;
  hook.issue = { id: 92, iid: 17, title: 'test', state: 'closed', description: 'test' };
  return hook;
}

/** `Merge Request Hook` for `action`, with `oldrev` when given. */
export function mergeRequestHook(
  action: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return structuredClone({
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: USER,
    project: PROJECT,
    repository: {
      name: 'Gitlab Test',
      url: 'http://example.com/gitlab-org/platform/gitlab-test.git',
      description: 'Aut reprehenderit ut est.',
      homepage: 'http://example.com/gitlab-org/platform/gitlab-test',
    },
    object_attributes: {
      id: 99,
      iid: 1,
      target_branch: 'master',
      source_branch: 'ms-viewport',
      source_project_id: 6,
      author_id: 51,
      assignee_ids: [6],
      title: 'MS-Viewport',
      created_at: '2013-12-03T17:23:34Z',
      updated_at: '2013-12-03T17:23:34Z',
      state: 'opened',
      blocking_discussions_resolved: true,
      work_in_progress: false,
      draft: false,
      merge_status: 'unchecked',
      target_project_id: 5,
      description: '',
      url: 'http://example.com/gitlab-org/platform/gitlab-test/-/merge_requests/1',
      source: FORK,
      target: PROJECT,
      last_commit: LAST_COMMIT,
      labels: [],
      action,
      detailed_merge_status: 'mergeable',
      ...extra,
    },
    labels: [],
    changes: {},
  });
}
