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
import { buildStorm, STORM_SECRETS, type Shot } from './webhook-storm-mix.js';

const CONCURRENCY = Number(process.env.STORM_CONCURRENCY ?? 32);
const SECRET = STORM_SECRETS.github;
const GL_SECRET = STORM_SECRETS.gitlab;
const TOKEN = 'ghp_stormToken00000000000000000000';
const GL_TOKEN = 'glpat-storm-token-000000000000';
const KEY = 'sk-storm-0000000000';
const MIB = 1024 * 1024;

const log = (message: string): void => void process.stderr.write(`[bench:webhook-storm] ${message}\n`);

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
