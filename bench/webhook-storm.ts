/**
 * Hostile webhook storm (`npm run bench:webhook-storm`): `reviewbot serve` as a child process, with
 * GitHub and GitLab enabled against fakes, gets a fixed mix of 10,000 hostile requests — bad and
 * missing signatures, wrong GitLab tokens, broken and non-object JSON, real payloads mutated with
 * hostile names and numbers, mentions by users not allowed, duplicates, 8 KiB delivery ids, 20 MiB
 * bodies (signed, unsigned, broken), 26 MiB declared bodies and slow senders — in bursts.
 * The mix also holds adversarial Markdown comments (issue 27: 65,534-character GitHub comments and
 * 1,000,000-character GitLab notes built to make the mention scan slow).
 * Prints one JSON object on stdout (progress on stderr): 5xx count, agent runs started (model
 * requests and jobs enqueued), the server's RSS when idle (the same-run baseline), at its peak
 * (VmHWM) and 10 s after the storm, and latencies (ms: p50, p99, max) of the webhooks by group and
 * of `/health` probed during the storm. Then `mentionScan`: a fresh server gets 200 adversarial
 * mention-scan webhooks and, as the same-run baseline, 200 benign ones of the same sizes and
 * authors (`buildMentionShots`), `/health` probed throughout. Targets: 0 × 5xx, 0 agent runs, RSS
 * 10 s after ≤ 1.3 × idle, adversarial webhook and `/health` p99 ≤ 2 × benign + 50 ms.
 * Same-run baseline of the RSS: the same storm against the same build started without the CLI
 * shebang's glibc allocator setting (`GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536`).
 * Env: STORM_CONCURRENCY (32).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI_PATH } from '../test/support/run-cli.js';
import { percentiles, probeHealth, type Percentiles } from './latency.js';
import { sendAll, startStormServer } from './storm-server.js';
import { buildMentionShots, buildStorm, freshDelivery, type Shot } from './webhook-storm-mix.js';

const CONCURRENCY = Number(process.env.STORM_CONCURRENCY ?? 32);
const MIB = 1024 * 1024;

const log = (message: string): void => void process.stderr.write(`[bench:webhook-storm] ${message}\n`);

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
  /** Webhook answer latencies by group, and `/health` latency during the storm. */
  latencyMs: {
    webhooks: Percentiles;
    adversarialMentionScan: Percentiles;
    noMention: Percentiles;
    health: Percentiles;
  };
}

/**
 * Starts a server (`cli` = the executable, default the built CLI with its shebang), sends the storm,
 * waits 10 s and measures; fakes are fresh per run.
 */
async function runStorm(storm: Shot[], root: string, cli?: string): Promise<StormFigures> {
  const started = await startStormServer(root, cli);
  const { server, githubFake, gitlabFake, llm } = started;
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
  const latencies = { webhooks: [] as number[], adversarial: [] as number[], noMention: [] as number[] };
  const health = probeHealth(server.url, 100);
  const stormStart = Date.now();
  await sendAll(server.url, storm, CONCURRENCY, (shot, status, ms) => {
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const counts = byKind.get(shot.kind) ?? {};
    counts[status] = (counts[status] ?? 0) + 1;
    byKind.set(shot.kind, counts);
    latencies.webhooks.push(ms);
    if (shot.kind.startsWith('adversarial')) latencies.adversarial.push(ms);
    if (shot.kind === 'no mention') latencies.noMention.push(ms);
  });
  const healthMs = await health.stop();
  const stormMs = Date.now() - stormStart;
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
    latencyMs: {
      webhooks: percentiles(latencies.webhooks),
      adversarialMentionScan: percentiles(latencies.adversarial),
      noMention: percentiles(latencies.noMention),
      health: percentiles(healthMs),
    },
  };
  await started.close();
  return figures;
}

/** Webhook and `/health` latencies of one mention-scan set. */
interface ScanFigures {
  statuses: Record<string, number>;
  webhookMs: Percentiles;
  healthMs: Percentiles;
}

/** Rounds of each mention-scan set (8 shots a round). */
const SCAN_ROUNDS = 25;

/**
 * The mention-scan comparison on one fresh server: a warm-up round, then `SCAN_ROUNDS` rounds of the
 * benign set (the same-run baseline) and of the adversarial set, 4 at a time, `/health` probed
 * every 20 ms during each.
 */
async function runMentionScan(root: string): Promise<{ benign: ScanFigures; adversarial: ScanFigures }> {
  const started = await startStormServer(root);
  const base = started.server.url;
  const sets = { benign: buildMentionShots('benign'), adversarial: buildMentionShots('adversarial') };
  const rounds = (shots: Shot[], n: number) =>
    Array.from({ length: n }, () => shots.map(freshDelivery)).flat();
  await sendAll(base, rounds([...sets.benign, ...sets.adversarial], 1), 4);
  const measure = async (shots: Shot[]): Promise<ScanFigures> => {
    const statuses: Record<string, number> = {};
    const webhookMs: number[] = [];
    const health = probeHealth(base, 20);
    await sendAll(base, rounds(shots, SCAN_ROUNDS), 4, (_shot, status, ms) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      webhookMs.push(ms);
    });
    return { statuses, webhookMs: percentiles(webhookMs), healthMs: percentiles(await health.stop()) };
  };
  const benign = await measure(sets.benign);
  const adversarial = await measure(sets.adversarial);
  if (started.server.logs.some((line) => line.msg === 'job enqueued')) throw new Error('a job was enqueued');
  await started.close();
  return { benign, adversarial };
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
  log('mention scan: benign bodies (baseline), then adversarial bodies of the same sizes');
  const mentionScan = await runMentionScan(root);
  const { fiveXx, agentRunsStarted, rssMb } = shipped;
  const within = (key: 'webhookMs' | 'healthMs') =>
    mentionScan.adversarial[key].p99 <= 2 * mentionScan.benign[key].p99 + 50;
  const result = {
    requests: storm.length,
    ...shipped,
    baselineWithoutAllocatorSetting: {
      stormSeconds: baseline.stormSeconds,
      fiveXx: baseline.fiveXx,
      rssMb: baseline.rssMb,
      latencyMs: baseline.latencyMs,
    },
    mentionScan,
    targets: {
      fiveXx: 0,
      agentRunsStarted: 0,
      afterOverIdle: 1.3,
      mentionScanP99: 'adversarial ≤ 2 × benign + 50 ms (webhook and /health)',
    },
    pass:
      fiveXx === 0 &&
      agentRunsStarted === 0 &&
      rssMb.after10s <= 1.3 * rssMb.idle &&
      within('webhookMs') &&
      within('healthMs'),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  rmSync(root, { recursive: true, force: true });
}

await main();
