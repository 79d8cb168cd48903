/**
 * Edge validation (issue 16) for Gitea/Forgejo: payloads built like Gitea's `modules/structs`,
 * mutated one field at a time — missing, null, wrong type, out of range, hostile strings — and
 * delivered signed to the real server. Each is answered 200 ignored with a reason naming the field
 * and the Gitea rule it breaks, reacts to nothing, starts no job and never lands in a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CTX, HOOKS, PR, startHooksHarness, type HooksHarness } from './gitea-hooks.test-helper.js';
import {
  pullRequestCommentHook,
  pullRequestHook,
  reviewHook,
  type GiteaHook,
} from '../../../test/support/fake-gitea/webhook-payloads.js';

const MENTION = `@${HOOKS.reviewer} please review`;
const INVALID = 'missing or invalid';
const REPO_RULE = 'invalid: not a Gitea owner/repo name';
const NUMBER_RULE = 'invalid: not a pull request number (1..2147483647)';

const BASES: Record<string, { event: string; make: () => GiteaHook }> = {
  comment: { event: 'issue_comment', make: () => pullRequestCommentHook(CTX, PR, { id: 11, body: MENTION }) },
  review: { event: 'pull_request_review_comment', make: () => reviewHook(CTX, PR, MENTION) },
  opened: { event: 'pull_request', make: () => pullRequestHook(CTX, PR, 'opened') },
};

const HOSTILE_REPOS = [
  'acme/..',
  'acme/.',
  'acme/-',
  '../../etc',
  'a/.git',
  'a/b.wiki',
  'a/B.RSS',
  'a/b.atom',
  'a/b..c',
  'a/b;rm -rf /',
  `${'x'.repeat(41)}/r`,
  `acme/${'r'.repeat(101)}`,
  'acme/widgets/extra',
  'acme',
  '/widgets',
  'acme/',
  '-acme/widgets',
  'ac--me/widgets',
  'acme./widgets',
  'ac.-me/widgets',
  '_acme/widgets',
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
const SHA = PR.headSha;
const HOSTILE_SHAS = ['abc', 'G'.repeat(40), SHA.toUpperCase(), `${SHA}/..`, ''];
const HOSTILE_LOGINS = ['-rb', 'rb.', 'rb..x', 'r_-b', 'a b', '../x', 'x'.repeat(41), 'rb[bot]', ''];

type Case = [field: string, value: unknown, reason: string];
const cases = (field: string, values: unknown[], reason: string): Case[] =>
  values.map((value) => [field, value, reason]);
const numberCases = (field: string): Case[] => [
  ...cases(field, [0, -1, 2 ** 31, 2 ** 53, 1.5], NUMBER_RULE),
  ...cases(field, [undefined, null, '7', true], INVALID),
];

const CASES: Record<string, Case[]> = {
  comment: [
    ...cases('repository.full_name', HOSTILE_REPOS, REPO_RULE),
    ...cases('repository.full_name', [undefined, null, 42], INVALID),
    ...cases(
      'repository.clone_url',
      ['file:///etc/passwd', 'ext::sh -c id', 'https://u:p@gitea.test/a/b.git'],
      'invalid: not an http(s) URL',
    ),
    ...numberCases('issue.number'),
    ...cases(
      'comment.id',
      ['abc', '../1', '007', '99999999999999999999'],
      'invalid: not a positive decimal id',
    ),
    ...cases('comment.id', [0, -5, 1.5, null, undefined], INVALID),
    ...cases('comment.user.login', HOSTILE_LOGINS, 'invalid: not a Gitea username'),
    ...cases('pull_request.head.sha', HOSTILE_SHAS, 'invalid: not a commit SHA'),
    ...cases('pull_request.head.ref', HOSTILE_BRANCHES, 'invalid: not a valid branch name'),
    ...cases('pull_request.head.repo.clone_url', ['file:///srv/repo.git'], 'invalid: not an http(s) URL'),
    ...numberCases('pull_request.number'),
  ],
  review: [
    ...cases('repository.full_name', ['acme/..', 'a/.git'], REPO_RULE),
    ...numberCases('pull_request.number'),
    ...cases('pull_request.base.ref', HOSTILE_BRANCHES.slice(0, 4), 'invalid: not a valid branch name'),
    ...cases('sender.login', HOSTILE_LOGINS.slice(0, 4), 'invalid: not a Gitea username'),
    ...cases('sender', [undefined, null], INVALID),
  ],
  opened: [
    ...cases('repository.full_name', ['acme/..', '../../etc'], REPO_RULE),
    ...numberCases('pull_request.number'),
    ...cases('pull_request.head.sha', HOSTILE_SHAS, 'invalid: not a commit SHA'),
    ...cases('pull_request.base.sha', ['deadbeef'], 'invalid: not a commit SHA'),
    ...cases('pull_request.head.ref', HOSTILE_BRANCHES, 'invalid: not a valid branch name'),
    ...cases('sender.login', ['-x'], 'invalid: not a Gitea username'),
  ],
};

/** Sets `path` (dot-separated keys) of `payload` to `value`; `undefined` deletes the key. */
function mutate(payload: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node = payload;
  for (const key of keys) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

describe('gitea webhook edge: hostile values in signed payloads', () => {
  let h: HooksHarness;
  beforeAll(async () => {
    h = await startHooksHarness();
  });
  afterAll(() => h.close());

  const rows = Object.entries(CASES).flatMap(([kind, list]) =>
    list.map(([field, value, reason]) => ({ kind, field, value, reason })),
  );
  it.each(rows)('$kind: $field = $value → ignored', async ({ kind, field, value, reason }) => {
    const base = BASES[kind]!;
    const hook = base.make();
    mutate(hook.payload, field, value);
    const answer = await h.send(hook);
    expect({ status: answer.status, json: answer.json }).toEqual({
      status: 200,
      json: { status: 'ignored', reason: `malformed ${base.event} payload: ${field} is ${reason}` },
    });
    expect(h.jobs).toHaveLength(0);
    expect(h.reactions).toHaveLength(0);
  });

  it('no hostile value reached a log line', () => {
    const logs = h.logText();
    for (const hostile of ['rm -rf', 'acme/..', '../../etc', 'file:///', 'x'.repeat(41)]) {
      expect(logs).not.toContain(hostile);
    }
  });

  it('accepts the unmutated payloads: the same harness does start jobs', async () => {
    for (const [kind, base] of Object.entries(BASES)) {
      const answer = await h.send(base.make());
      expect({ kind, json: answer.json }).toEqual({ kind, json: { status: 'accepted' } });
    }
    expect(h.jobs).toHaveLength(3);
  });
});
