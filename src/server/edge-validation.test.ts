/**
 * Edge validation (issue 16, part 2): real payloads (`@octokit/webhooks-examples`, GitLab's
 * documented examples) mutated one field at a time — missing, null, wrong type, out of range,
 * hostile strings — and delivered signed to the real server with the real platforms and the real
 * dispatcher. Each is answered 200 ignored with a reason naming the field, makes no platform call,
 * starts no job and never lands in a log line. A valid delivery of each kind, sent last, proves the
 * same harness does reach the fakes and start jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  githubExample,
  issueCommentOnPullRequest,
  type ExamplePayload,
} from '../platforms/github/webhook-examples.test-helper.js';
import {
  diffNoteHook,
  mergeRequestHook,
  mergeRequestNoteHook,
} from '../platforms/gitlab/webhook-examples.test-helper.js';
import {
  EDGE,
  mutate,
  postGitHub,
  postGitLab,
  startEdgeHarness,
  type EdgeHarness,
} from './edge.test-helper.js';

const MENTION = `@${EDGE.reviewer} please review`;
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

/** The four GitHub events that may start a job, on a mention by an allowed user. */
const GITHUB_BASES: Record<string, () => ExamplePayload> = {
  issue_comment: () => {
    const p = issueCommentOnPullRequest();
    p.comment.body = MENTION;
    p.comment.user.login = EDGE.user;
    p.sender.login = EDGE.user;
    return p;
  },
  pull_request_review_comment: () => {
    const p = githubExample('pull_request_review_comment', 'created');
    p.comment.body = MENTION;
    p.comment.user.login = EDGE.user;
    p.sender.login = EDGE.user;
    return p;
  },
  pull_request_review: () => {
    const p = githubExample('pull_request_review', 'submitted');
    p.review.body = MENTION;
    p.review.user.login = EDGE.user;
    p.sender.login = EDGE.user;
    return p;
  },
  pull_request: () => githubExample('pull_request', 'opened'),
};

/** GitLab: a note, a diff note and an opened merge request (by an allowed user). */
const GITLAB_BASES: Record<string, { event: string; make: () => Record<string, unknown> }> = {
  note: { event: 'Note Hook', make: () => withUser(mergeRequestNoteHook()) },
  diff_note: { event: 'Note Hook', make: () => withUser(diffNoteHook()) },
  merge_request: { event: 'Merge Request Hook', make: () => withUser(mergeRequestHook('open')) },
};

function withUser(hook: Record<string, unknown>): Record<string, unknown> {
  (hook.user as Record<string, unknown>).username = EDGE.user;
  return hook;
}

const INVALID = 'missing or invalid';
const HOSTILE_REPOS = [
  'acme/..',
  'acme/.',
  '../../etc',
  'a/.git',
  'a/b;rm -rf /',
  `${'x'.repeat(5000)}/r`,
  `acme/${'r'.repeat(101)}`,
  'acme/widgets/extra',
  'acme',
  '/widgets',
  'acme/',
  '-acme/widgets',
  'ac--me/widgets',
  'acme/wid gets',
  'acme/wid%2F..',
  'acme/widgets\n',
  'acmé/widgets',
  '',
];
const HOSTILE_BRANCHES = [
  '..',
  'a..b',
  '-x',
  'feature/../../x',
  'a b',
  'x.lock',
  'a~1',
  '',
  'a:b',
  '.hidden',
];
const HOSTILE_PATHS = ['../../etc/passwd', '/etc/passwd', 'a//b', 'a/./b', 'a\u0000b', ''];

type Case = [field: string, value: unknown, reason: string];

function cases(field: string, values: unknown[], reason: string): Case[] {
  return values.map((value) => [field, value, reason]);
}

function prNumberCases(field: string, rule: string): Case[] {
  return [
    ...cases(field, [0, -1, 2 ** 31, 2 ** 53, 1.5], `invalid: ${rule}`),
    ...cases(field, [undefined, null, '7', true], INVALID),
  ];
}

const GITHUB_CASES: Record<string, Case[]> = {
  issue_comment: [
    ...cases('repository.full_name', HOSTILE_REPOS, 'invalid: not a GitHub owner/repo name'),
    ...cases('repository.full_name', [undefined, null, 42], INVALID),
    ...cases(
      'repository.clone_url',
      ['file:///etc/passwd', 'ext::sh -c id', 'https://u:p@github.com/a/b.git'],
      'invalid: not an http(s) URL',
    ),
    ...prNumberCases('issue.number', 'not a pull request number (1..2147483647)'),
    ...cases(
      'comment.id',
      ['abc', '../1', '1 OR 1', '007', '99999999999999999999'],
      'invalid: not a positive decimal id',
    ),
    ...cases('comment.id', [0, -5, 1.5, null, undefined], INVALID),
    ...cases('comment.user.login', ['../x', 'a b', 'x'.repeat(40)], 'invalid: not a GitHub login'),
  ],
  pull_request_review_comment: [
    ...cases('repository.full_name', ['acme/..', 'a/.git'], 'invalid: not a GitHub owner/repo name'),
    ...prNumberCases('pull_request.number', 'not a pull request number (1..2147483647)'),
    ...cases(
      'pull_request.head.sha',
      ['abc', 'G'.repeat(40), SHA.toUpperCase(), `${SHA}/..`],
      'invalid: not a commit SHA',
    ),
    ...cases('pull_request.head.ref', HOSTILE_BRANCHES, 'invalid: not a valid branch name'),
    ...cases('pull_request.base.ref', HOSTILE_BRANCHES.slice(0, 3), 'invalid: not a valid branch name'),
    ...cases('pull_request.head.repo.clone_url', ['file:///srv/repo.git'], 'invalid: not an http(s) URL'),
    ...cases('comment.path', HOSTILE_PATHS, 'invalid: not a relative file path'),
    ...cases('comment.line', [0, -1, 1.5, 'x'], INVALID),
    ...cases('comment.in_reply_to_id', ['../1'], 'invalid: not a positive decimal id'),
  ],
  pull_request_review: [
    ...cases('review.id', ['x', '0'], 'invalid: not a positive decimal id'),
    ...cases('repository.full_name', ['../../etc'], 'invalid: not a GitHub owner/repo name'),
    ...cases('pull_request.number', [2 ** 31], 'invalid: not a pull request number (1..2147483647)'),
  ],
  pull_request: [
    ...cases('repository.full_name', ['acme/..'], 'invalid: not a GitHub owner/repo name'),
    ...prNumberCases('pull_request.number', 'not a pull request number (1..2147483647)'),
    ...cases('pull_request.base.sha', ['', 'deadbeef'], 'invalid: not a commit SHA'),
    ...cases('sender', [undefined, null], INVALID),
  ],
};

const HOSTILE_PROJECTS = [
  'a/.git',
  'g/p.git',
  'g/p.atom',
  'g.git/p',
  '../../etc',
  'g/..',
  'g/.',
  'a/b;rm -rf /',
  `${'x'.repeat(5000)}/p`,
  'group',
  'g//p',
  'g/p/',
  '/g/p',
  '-g/p',
  'g./p',
  'g/p q',
  Array.from({ length: 23 }, (_, i) => `g${i}`).join('/'),
  '',
];

const GITLAB_CASES: Record<string, Case[]> = {
  note: [
    ...cases('project.path_with_namespace', HOSTILE_PROJECTS, 'invalid: not a GitLab project path'),
    ...cases('project.path_with_namespace', [undefined, null, 5], INVALID),
    ...cases('project.git_http_url', ['file:///x', 'ssh://git@h/x.git'], 'invalid: not an http(s) URL'),
    ...prNumberCases('merge_request.iid', 'not a merge request iid (1..2147483647)'),
    ...cases('object_attributes.id', ['x', '-1'], 'invalid: not a positive decimal id'),
    ...cases('object_attributes.id', [0, null, undefined], INVALID),
    ...cases('merge_request.source_branch', HOSTILE_BRANCHES, 'invalid: not a valid branch name'),
    ...cases('merge_request.target_branch', ['..'], 'invalid: not a valid branch name'),
    ...cases('merge_request.last_commit.id', ['zz', ''], 'invalid: not a commit SHA'),
    ...cases('merge_request.source.path_with_namespace', ['../x'], 'invalid: not a GitLab project path'),
    ...cases('object_attributes.discussion_id', ['../x', 'a b'], 'invalid: not a discussion id'),
    ...cases('user.username', ['a b', 'x.', '../x', 'u.git'], 'invalid: not a GitLab username'),
  ],
  diff_note: [
    ...cases('object_attributes.position.new_path', HOSTILE_PATHS, 'invalid: not a relative file path'),
    ...cases('object_attributes.position.new_line', [0, -3, 'x'], INVALID),
  ],
  merge_request: [
    ...cases('project.path_with_namespace', ['a/.git', 'g/..'], 'invalid: not a GitLab project path'),
    ...prNumberCases('object_attributes.iid', 'not a merge request iid (1..2147483647)'),
    ...cases('object_attributes.target_branch', ['..', 'a b'], 'invalid: not a valid branch name'),
    ...cases('object_attributes.last_commit.id', ['abc'], 'invalid: not a commit SHA'),
  ],
};

describe('webhook edge: hostile values in signed real payloads', () => {
  let h: EdgeHarness;
  beforeAll(async () => {
    h = await startEdgeHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  function expectNothingStarted(): void {
    expect(h.jobs).toHaveLength(0);
    expect(h.github.requests).toHaveLength(0);
    expect(h.gitlab.requests).toHaveLength(0);
  }

  const githubRows = Object.entries(GITHUB_CASES).flatMap(([kind, rows]) =>
    rows.map(([field, value, reason]) => ({ kind, field, value, reason })),
  );
  it.each(githubRows)('github $kind: $field = $value → ignored', async ({ kind, field, value, reason }) => {
    const payload = (GITHUB_BASES[kind] as () => ExamplePayload)();
    mutate(payload, field, value);
    const answer = await postGitHub(h, kind, payload);
    expect(answer).toEqual({
      status: 200,
      json: { status: 'ignored', reason: `malformed ${kind} payload: ${field} is ${reason}` },
    });
    expectNothingStarted();
  });

  const gitlabRows = Object.entries(GITLAB_CASES).flatMap(([kind, rows]) =>
    rows.map(([field, value, reason]) => ({ kind, field, value, reason })),
  );
  it.each(gitlabRows)('gitlab $kind: $field = $value → ignored', async ({ kind, field, value, reason }) => {
    const base = GITLAB_BASES[kind] as { event: string; make: () => Record<string, unknown> };
    const payload = base.make();
    mutate(payload, field, value);
    const answer = await postGitLab(h, base.event, payload);
    expect(answer).toEqual({
      status: 200,
      json: { status: 'ignored', reason: `malformed ${base.event} payload: ${field} is ${reason}` },
    });
    expectNothingStarted();
  });

  it('made no platform call and started no job, and no hostile value reached a log line', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    expectNothingStarted();
    const logs = h.logText();
    for (const hostile of ['rm -rf', 'acme/..', '../../etc', 'file:///', 'x'.repeat(200)]) {
      expect(logs).not.toContain(hostile);
    }
  });

  it('accepts the unmutated payloads: the harness does reach the platforms and start jobs', async () => {
    for (const kind of Object.keys(GITHUB_CASES)) {
      const answer = await postGitHub(h, kind, (GITHUB_BASES[kind] as () => ExamplePayload)());
      expect({ kind, ...answer }).toEqual({ kind, status: 200, json: { status: 'accepted' } });
    }
    for (const [kind, base] of Object.entries(GITLAB_BASES)) {
      const answer = await postGitLab(h, base.event, base.make());
      expect({ kind, ...answer }).toEqual({ kind, status: 200, json: { status: 'accepted' } });
    }
    expect(h.jobs).toHaveLength(7);
    // The comments' `eyes` reactions (not on a review, which has none) go out through each
    // platform; the fakes know no such repository and answer 404, which the dispatcher only logs.
    await expect.poll(() => h.github.requests.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => h.gitlab.requests.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(h.github.violations).toEqual([]);
    expect(h.gitlab.violations).toEqual([]);
  });
});

describe('webhook edge: a GitLab note names the bot only where GitLab usernames end', () => {
  let h: EdgeHarness;
  beforeAll(async () => {
    h = await startEdgeHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    [`@${EDGE.reviewer}_ hi`, 'ignored'],
    [`@${EDGE.reviewer}.x hi`, 'ignored'],
    [`@${EDGE.reviewer}-x hi`, 'ignored'],
    [`mail@${EDGE.reviewer}.com hi`, 'ignored'],
    [`\`@${EDGE.reviewer}\` hi`, 'ignored'],
    [`thanks @${EDGE.reviewer}. Please look`, 'accepted'],
  ])('%j → %s', async (note, status) => {
    const hook = withUser(mergeRequestNoteHook()) as { object_attributes: Record<string, unknown> };
    hook.object_attributes.note = note;
    const before = h.jobs.length;
    const answer = await postGitLab(h, 'Note Hook', hook);
    expect(answer).toEqual({
      status: 200,
      json: status === 'accepted' ? { status } : { status, reason: 'no mention of the bot' },
    });
    expect(h.jobs.length - before).toBe(status === 'accepted' ? 1 : 0);
  });
});
