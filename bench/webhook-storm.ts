/**
 * Hostile webhook storm (`npm run bench:webhook-storm`): `reviewbot serve` as a child process, with
 * GitHub and GitLab enabled against fakes, gets a fixed mix of 10,000 hostile requests — bad and
 * missing signatures, wrong GitLab tokens, broken and non-object JSON, real payloads mutated with
 * hostile names and numbers, mentions by users not allowed, duplicates, 8 KiB delivery ids, 20 MiB
 * bodies (signed, unsigned, broken), 26 MiB declared bodies and slow senders — in bursts.
 * Prints one JSON object on stdout (progress on stderr): 5xx count, agent runs started (model
 * requests and jobs enqueued), and the server's RSS when idle (the same-run baseline), at its peak
 * (VmHWM) and 10 s after the storm. Targets: 0 × 5xx, 0 agent runs, RSS 10 s after ≤ 1.3 × idle.
 * Same-run baseline: the same storm against the same build started without the CLI shebang's
 * glibc allocator setting (`GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536`).
 * Env: STORM_CONCURRENCY (32).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startFakeGitHub } from '../test/support/fake-github/index.js';
import { startFakeGitLab } from '../test/support/fake-gitlab/index.js';
import { startFakeAnthropic } from '../test/support/fake-llm/index.js';
import { CLI_PATH } from '../test/support/run-cli.js';
import { startServe } from '../test/support/serve-process.js';
import { signGitHubWebhook } from '../test/support/webhook-signing.js';
import { issueCommentPayload } from '../test/e2e/github-payloads.js';

const CONCURRENCY = Number(process.env.STORM_CONCURRENCY ?? 32);
const TOTAL = 10_000;
const SECRET = 'storm-webhook-secret';
const GL_SECRET = 'storm-gitlab-secret';
const TOKEN = 'ghp_stormToken00000000000000000000';
const GL_TOKEN = 'glpat-storm-token-000000000000';
const KEY = 'sk-storm-0000000000';
const MIB = 1024 * 1024;

const log = (message: string): void => void process.stderr.write(`[bench:webhook-storm] ${message}\n`);

/** One request of the storm. */
interface Shot {
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
function note(body: string, projectPath = 'acme/widgets', iid: number = 7): Json {
  return {
    object_kind: 'note',
    user: { id: 1, name: 'Alice', username: 'alice' },
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

/** The fixed storm: TOTAL shots in a fixed shuffled order. */
function buildStorm(): Shot[] {
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
  add(1180, (i) => github('no mention', json(comment(`Looks fine ${i}.`))));
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

function send(agent: Agent, base: string, shot: Shot): Promise<number> {
  return new Promise((resolve) => {
    const length = shot.declaredLength ?? shot.body.length;
    const req = request(
      `${base}/webhooks/${shot.platform}`,
      { method: 'POST', agent, headers: { ...shot.headers, 'content-length': String(length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The server may close a connection it answered early (413): that is an answer, not an error.
    req.on('error', () => resolve(-1));
    if (shot.declaredLength !== undefined) {
      req.flushHeaders();
      return;
    }
    if (!shot.slowPieces) {
      req.end(shot.body);
      return;
    }
    const size = Math.ceil(shot.body.length / shot.slowPieces);
    let offset = 0;
    const timer = setInterval(() => {
      const piece = shot.body.subarray(offset, offset + size);
      offset += size;
      if (offset >= shot.body.length) {
        clearInterval(timer);
        req.end(piece);
      } else req.write(piece);
    }, 50);
  });
}

/** The server's own memory figures (MB) from its `/metrics` (prom-client's default Node metrics). */
async function heapFigures(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const pick = (pattern: RegExp) => Number((Number(pattern.exec(text)?.[1] ?? 0) / MIB).toFixed(1));
  return {
    heapTotal: pick(/^nodejs_heap_size_total_bytes (\S+)/m),
    heapUsed: pick(/^nodejs_heap_size_used_bytes (\S+)/m),
    external: pick(/^nodejs_external_memory_bytes (\S+)/m),
    largeObjectSpace: pick(/^nodejs_heap_space_size_total_bytes\{space="large_object"\} (\S+)/m),
    oldSpace: pick(/^nodejs_heap_space_size_total_bytes\{space="old"\} (\S+)/m),
  };
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/** Figures of one storm against one server. */
interface StormFigures {
  stormSeconds: number;
  statuses: Record<string, number>;
  byKind: Record<string, Record<string, number>>;
  fiveXx: number;
  agentRunsStarted: number;
  platformCallsDuringStorm: { github: number; gitlab: number };
  rssMb: { idle: number; peak: number; after10s: number; afterOverIdle: number };
  heapMb: { idle: Record<string, number>; after10s: Record<string, number> };
}

/**
 * Starts a server (`cli` = the executable, default the built CLI with its shebang), sends the storm,
 * waits 10 s and measures; fakes are fresh per run.
 */
async function runStorm(storm: Shot[], root: string, cli?: string): Promise<StormFigures> {
  const githubFake = await startFakeGitHub({ token: TOKEN });
  const gitlabFake = await startFakeGitLab({ token: GL_TOKEN });
  const llm = await startFakeAnthropic({
    apiKey: KEY,
    script: () => ({ text: JSON.stringify({ summary: 'ok', comments: [] }) }),
  });
  const server = await startServe(
    {
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: githubFake.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      GITLAB_TOKEN: GL_TOKEN,
      GITLAB_URL: gitlabFake.url,
      GITLAB_WEBHOOK_SECRET: GL_SECRET,
      REVIEWER_BOT_USERNAME: 'review-bot',
      ALLOWED_USERS: 'alice',
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: path.join(root, 'ws'),
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
    },
    60_000,
    cli,
  );
  const pid = server.child.pid!;
  global.gc?.();
  await new Promise((r) => setTimeout(r, 3000));
  const idleRssMb = rssMb(pid);
  const idleHeap = await heapFigures(server.url);
  log(
    `server idle RSS ${idleRssMb.toFixed(1)} MB; sending ${storm.length} requests, ${CONCURRENCY} at a time`,
  );

  const callsBefore = { github: githubFake.requests.length, gitlab: gitlabFake.requests.length };
  const statuses = new Map<number, number>();
  const byKind = new Map<string, Record<string, number>>();
  let sampledPeak = idleRssMb;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, rssMb(pid));
  }, 50);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < storm.length) {
        const shot = storm[next++]!;
        const status = await send(agent, server.url, shot);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const counts = byKind.get(shot.kind) ?? {};
        counts[status] = (counts[status] ?? 0) + 1;
        byKind.set(shot.kind, counts);
      }
    }),
  );
  agent.destroy();
  const stormMs = Date.now() - started;
  log(`storm done in ${(stormMs / 1000).toFixed(1)} s; waiting 10 s`);
  await new Promise((r) => setTimeout(r, 10_000));
  clearInterval(sampler);
  const afterRssMb = rssMb(pid);
  const afterHeap = await heapFigures(server.url);
  const peakRssMb = Math.max(sampledPeak, rssMb(pid, 'VmHWM'));
  const jobsEnqueued = server.logs.filter((line) => line.msg === 'job enqueued').length;
  const fiveXx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  const figures: StormFigures = {
    stormSeconds: Number((stormMs / 1000).toFixed(1)),
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    byKind: Object.fromEntries(byKind),
    fiveXx,
    agentRunsStarted: llm.requests.length + jobsEnqueued,
    platformCallsDuringStorm: {
      github: githubFake.requests.length - callsBefore.github,
      gitlab: gitlabFake.requests.length - callsBefore.gitlab,
    },
    rssMb: {
      idle: Number(idleRssMb.toFixed(1)),
      peak: Number(peakRssMb.toFixed(1)),
      after10s: Number(afterRssMb.toFixed(1)),
      afterOverIdle: Number((afterRssMb / idleRssMb).toFixed(2)),
    },
    heapMb: { idle: idleHeap, after10s: afterHeap },
  };
  await server.stop('SIGKILL');
  await llm.close();
  await githubFake.close();
  await gitlabFake.close();
  return figures;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bench-storm-'));
  const storm = buildStorm();
  // The server as shipped: the CLI with its shebang (V8 flags and the glibc allocator setting).
  log('storm against the server as shipped');
  const shipped = await runStorm(storm, root);
  // Same-run baseline: the same build started by plain `node` with the V8 flags only.
  log('baseline: the same storm against the server without the allocator setting');
  const wrapper = path.join(root, 'reviewbot-plain');
  writeFileSync(wrapper, `#!/bin/sh\nexec node --max-semi-space-size=8 ${CLI_PATH} "$@"\n`, { mode: 0o755 });
  const baseline = await runStorm(storm, root, wrapper);
  const { fiveXx, agentRunsStarted, rssMb } = shipped;
  const result = {
    requests: storm.length,
    ...shipped,
    baselineWithoutAllocatorSetting: { fiveXx: baseline.fiveXx, rssMb: baseline.rssMb },
    targets: { fiveXx: 0, agentRunsStarted: 0, afterOverIdle: 1.3 },
    pass: fiveXx === 0 && agentRunsStarted === 0 && rssMb.after10s <= 1.3 * rssMb.idle,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  rmSync(root, { recursive: true, force: true });
}

await main();
