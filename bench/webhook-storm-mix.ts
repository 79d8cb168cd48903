/**
 * The fixed hostile mix of `bench:webhook-storm`: 10,000 requests in a seeded shuffled order, built
 * from real payloads (`@octokit/webhooks-examples`, GitLab's documented note example), and the
 * mention-scan sets (`buildMentionShots`): adversarial Markdown bodies (issue 27) and benign bodies
 * of the same sizes, by the same authors.
 */
import { adversarialBodies } from '../test/support/adversarial-markdown.js';
import { signGitHubWebhook } from '../test/support/webhook-signing.js';
import { issueCommentPayload } from '../test/e2e/github-payloads.js';

/** Secrets the storm signs with (the server under test is started with them). */
export const STORM_SECRETS = { github: 'storm-webhook-secret', gitlab: 'storm-gitlab-secret' } as const;
const SECRET = STORM_SECRETS.github;
const GL_SECRET = STORM_SECRETS.gitlab;
const TOTAL = 10_000;
const MIB = 1024 * 1024;

/** One request of the storm. */
export interface Shot {
  kind: string;
  platform: 'github' | 'gitlab';
  body: Buffer;
  headers: Record<string, string>;
  /** Send the body in this many pieces, 50 ms apart (a slow sender). */
  slowPieces?: number;
  /** Declare this content length (the body is not sent: the server answers 413 first). */
  declaredLength?: number;
}

/** A small deterministic PRNG (mulberry32): the same mix in every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let deliveries = 0;

function github(
  kind: string,
  body: Buffer,
  options: { sign?: string | null; event?: string; delivery?: string } = {},
): Shot {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': options.event ?? 'issue_comment',
    'x-github-delivery': options.delivery ?? `storm-${deliveries++}`,
  };
  const signature = options.sign === undefined ? signGitHubWebhook(SECRET, body) : options.sign;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  return { kind, platform: 'github', body, headers };
}

function gitlab(kind: string, body: Buffer, token: string): Shot {
  return {
    kind,
    platform: 'gitlab',
    body,
    headers: {
      'content-type': 'application/json',
      'x-gitlab-event': 'Note Hook',
      'x-gitlab-token': token,
      'x-gitlab-event-uuid': `storm-gl-${deliveries++}`,
    },
  };
}

type Json = Record<string, unknown>;

function comment(body: string, login = 'alice', repo = 'acme/widgets', pr = 7): Json {
  return issueCommentPayload({ repo, pr, body, login, commentId: 1_000_000 + deliveries });
}

/** A GitLab `Note Hook` (after GitLab's documented example) on merge request `iid`. */
function note(body: string, projectPath = 'acme/widgets', iid: number = 7, login = 'alice'): Json {
  return {
    object_kind: 'note',
    user: { id: 1, name: login, username: login },
    project: { id: 5, path_with_namespace: projectPath, git_http_url: 'http://127.0.0.1:9/acme/widgets.git' },
    object_attributes: {
      id: 1244,
      note: body,
      noteable_type: 'MergeRequest',
      system: false,
      type: null,
      discussion_id: '87805b7c09016a7058e91bdbe7b29d1f284a39e6',
      action: 'create',
    },
    merge_request: {
      iid,
      title: 'Tune',
      source_branch: 'feature',
      target_branch: 'main',
      last_commit: { id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7' },
    },
  };
}

const HOSTILE_REPOS = ['acme/..', 'a/.git', '../../etc', 'a/b;rm -rf /', `${'x'.repeat(5000)}/r`, 'acme/.'];
const HOSTILE_NUMBERS = [0, -1, 2 ** 31, 1.5];

/** The fixed storm: 10,000 shots in a fixed shuffled order. */
export function buildStorm(): Shot[] {
  const rand = random(16);
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const shots: Shot[] = [];
  const add = (n: number, make: (i: number) => Shot) => {
    for (let i = 0; i < n; i++) shots.push(make(i));
  };
  const mention = json(comment('@review-bot please review'));
  add(2000, () => github('bad signature', mention, { sign: `sha256=${'0'.repeat(64)}` }));
  add(500, () => github('no signature', mention, { sign: null }));
  add(1000, () => gitlab('wrong gitlab token', json(note('@review-bot hi')), 'not-the-token'));
  const truncated = mention.subarray(0, Math.floor(mention.length / 2));
  add(1000, () => github('broken JSON', truncated));
  const nonObjects = ['[1,2]', '"x"', 'null', '42', ''].map((t) => Buffer.from(t));
  add(500, (i) => github('non-object JSON', nonObjects[i % nonObjects.length]!));
  add(1000, (i) => {
    const payload = comment('@review-bot review') as Json & { repository: Json; issue: Json };
    if (i % 2 === 0) payload.repository.full_name = HOSTILE_REPOS[i % HOSTILE_REPOS.length];
    else payload.issue.number = HOSTILE_NUMBERS[i % HOSTILE_NUMBERS.length];
    return github('mutated GitHub payload', json(payload));
  });
  add(1000, (i) => {
    const payload = note(
      '@review-bot review',
      i % 2 === 0 ? HOSTILE_REPOS[i % HOSTILE_REPOS.length] : 'acme/widgets',
    );
    if (i % 2 === 1) (payload.merge_request as Json).iid = HOSTILE_NUMBERS[i % HOSTILE_NUMBERS.length];
    return gitlab('mutated GitLab payload', json(payload), GL_SECRET);
  });
  add(900, (i) => github('no mention', json(comment(`Looks fine ${i}.`))));
  // Adversarial Markdown (issue 27): 65,534-character comments and 1,000,000-character notes.
  const adversarial = buildMentionShots('adversarial');
  add(280, (i) => freshDelivery(adversarial[i % adversarial.length]!));
  add(500, () => github('mention by a user not allowed', json(comment('@review-bot review', 'mallory'))));
  add(500, (i) =>
    github('duplicate delivery', json(comment(`dup ${i}`)), { delivery: `storm-dup-${i % 10}` }),
  );
  add(500, () =>
    github('lifecycle trigger not enabled', json({ action: 'closed', number: 7 }), { event: 'pull_request' }),
  );
  add(200, (i) =>
    github('8 KiB delivery id', json(comment(`long id ${i}`)), { delivery: `${i}-${'d'.repeat(8 * 1024)}` }),
  );
  add(40, () => ({ ...github('slow sender', json(comment('slowly, no mention'))), slowPieces: 10 }));
  add(20, () => ({ ...github('26 MiB declared', Buffer.from('{}')), declaredLength: 26 * MIB }));
  // 20 MiB bodies: a signed comment without a mention, the same unsigned, and signed broken JSON.
  const huge = json(comment(`no mention ${'z'.repeat(20 * MIB)}`));
  const hugeSignature = signGitHubWebhook(SECRET, huge);
  const hugeBroken = huge.subarray(0, huge.length - 10);
  const hugeBrokenSignature = signGitHubWebhook(SECRET, hugeBroken);
  add(20, () => github('20 MiB signed', huge, { sign: hugeSignature }));
  add(20, () => github('20 MiB bad signature', huge, { sign: `sha256=${'1'.repeat(64)}` }));
  add(20, () => github('20 MiB broken JSON', hugeBroken, { sign: hugeBrokenSignature }));
  if (shots.length !== TOTAL) throw new Error(`storm has ${shots.length} shots, expected ${TOTAL}`);
  for (let i = shots.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [shots[i], shots[j]] = [shots[j]!, shots[i]!];
  }
  return shots;
}

/** `shot` under a new delivery id (the signature covers the body only), so it is not a duplicate. */
export function freshDelivery(shot: Shot): Shot {
  const headers = { ...shot.headers };
  if (shot.platform === 'github') headers['x-github-delivery'] = `storm-${deliveries++}`;
  else headers['x-gitlab-event-uuid'] = `storm-gl-${deliveries++}`;
  return { ...shot, headers };
}

/** A GitHub comment's longest body (GitHub's limit is 65,536 characters) and a GitLab note's. */
const GITHUB_BODY = 65_534;
const GITLAB_NOTE = 1_000_000;

/** Ordinary review prose with inline code, a quote and a fence, cut to `length` characters. */
function benignBody(prefix: string, length: number): string {
  const prose =
    'The `retry` loop looks right, but `backoff` is never reset.\n> quoted from the last review\n' +
    '```ts\nconst delay = base * 2 ** attempt;\n```\nPlease add a test for the reset path.\n\n';
  return (prefix + prose.repeat(Math.ceil(length / prose.length))).slice(0, length);
}

/**
 * The mention-scan set: 8 shots, by a user not in `allowed_users` (`mallory`, mention first) and
 * by an allowed one (`alice`, whose body is scanned but names no configured bot, so no job
 * starts): GitHub comments of 65,534 characters in the three adversarial shapes of
 * `adversarialBodies` (`benign`: ordinary prose of the same length instead), and GitLab notes of
 * 1,000,000 characters.
 */
export function buildMentionShots(kind: 'adversarial' | 'benign'): Shot[] {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const shots: Shot[] = [];
  for (const [login, prefix] of [
    ['mallory', '@review-bot please review '],
    ['alice', '@review-bot-two please review '],
  ] as const) {
    const bodies = (length: number) =>
      kind === 'adversarial'
        ? adversarialBodies(prefix, length).map((b) => b.body)
        : [0, 1, 2].map(() => benignBody(prefix, length));
    for (const body of bodies(GITHUB_BODY)) {
      shots.push(github(`${kind} mention scan (GitHub)`, json(comment(body, login))));
    }
    for (const body of bodies(GITLAB_NOTE).slice(0, 1)) {
      const hook = note(body, 'acme/widgets', 7, login);
      shots.push(gitlab(`${kind} mention scan (GitLab)`, json(hook), GL_SECRET));
    }
  }
  return shots;
}
