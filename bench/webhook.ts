/**
 * Webhook benchmark (`npm run bench:webhook`): `reviewbot serve` as a child process against a fake
 * GitHub that answers every call in 500 ms.
 * 1. Ack latency: signed mention webhooks at a steady rate (default 50/s) for 30 s; p50/p99/max and
 *    errors. Every mention is accepted and starts a real job in the background.
 * 2. Throughput of verified-but-ignored webhooks (a signed comment without a mention) against a bare
 *    `node:http` server that only reads and JSON-parses the same body, measured in the same run in
 *    alternating rounds; reported as a ratio.
 * 3. Idle RSS of the server after start-up.
 * Prints one JSON object on stdout; progress on stderr. Targets: p99 ≤ 10 ms, ratio ≥ 0.6,
 * idle RSS ≤ 120 MB. Env: BENCH_SECONDS (30), BENCH_RATE (50), BENCH_ROUNDS (7).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFakeGitHub } from '../test/support/fake-github/index.js';
import { startFakeAnthropic } from '../test/support/fake-llm/index.js';
import { createDiffScenario } from '../test/support/git-fixtures.js';
import { freePort, startServe } from '../test/support/serve-process.js';
import { signGitHubWebhook } from '../test/support/webhook-signing.js';
import { issueCommentPayload } from '../test/e2e/github-payloads.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = 2000;
const CONCURRENCY = 16;
const SECRET = 'bench-webhook-secret';
const TOKEN = 'ghp_benchToken000000000000000000000';
const KEY = 'sk-bench-0000000000';

const log = (message: string): void => void process.stderr.write(`[bench:webhook] ${message}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A real `issue_comment` payload (`@octokit/webhooks-examples`) on pull request 7 with `body`. */
function commentPayload(id: number, body: string): string {
  return JSON.stringify(
    issueCommentPayload({ repo: 'acme/widgets', pr: 7, body, login: 'alice', commentId: id }),
  );
}

interface Target {
  url: string;
  stop(): Promise<unknown>;
}

/** The bare baseline: reads the body, JSON-parses it, answers a small JSON. */
async function startBare(): Promise<Target & { child: ChildProcess }> {
  const port = await freePort();
  const code = `
    const http = require('node:http');
    http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"ignored","reason":"no mention of the bot"}');
      });
    }).listen(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, child, stop: async () => void child.kill() };
}

function post(agent: Agent, url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Closed-loop throughput: CONCURRENCY requests in flight for `ms`; returns requests per second. */
async function throughput(
  url: string,
  body: Buffer,
  headers: (delivery: string) => Record<string, string>,
  ms: number,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const end = performance.now() + ms;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const status = await post(agent, url, body, headers(`t-${done + failed}-${Math.random()}`)).catch(
          () => 0,
        );
        if (status === 200) done += 1;
        else failed += 1;
      }
    }),
  );
  agent.destroy();
  if (failed > 0) log(`${failed} failed requests against ${url}`);
  return done / (ms / 1000);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'reviewbot-bench-webhook-'));
  const scenario = createDiffScenario(path.join(root, 'repos'), 'acme/widgets');
  const github = await startFakeGitHub({ token: TOKEN });
  await github.addPullRequest({
    owner: 'acme',
    repo: 'widgets',
    number: 7,
    bareRepoPath: scenario.bareRepoPath,
    base: scenario.base,
    head: scenario.head,
    title: 'Tune the service constants',
  });
  github.setLatency(500);
  const llm = await startFakeAnthropic({
    apiKey: KEY,
    script: () => ({ text: JSON.stringify({ summary: 'ok', comments: [] }) }),
  });
  const server = await startServe(
    {
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: github.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
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
  );
  await new Promise((r) => setTimeout(r, 2000));
  const idleRssMb = rssMb(server.child.pid!);
  log(`server idle RSS ${idleRssMb.toFixed(1)} MB`);

  // 2. Throughput of verified-but-ignored webhooks vs the bare server, alternating rounds.
  const ignoredBody = Buffer.from(commentPayload(1, 'Looks good to me, no mention here.'));
  const headers = (body: Buffer, delivery: string) => ({
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-github-delivery': delivery,
    'x-hub-signature-256': signGitHubWebhook(SECRET, body),
  });
  const ignoredSignature = signGitHubWebhook(SECRET, ignoredBody);
  const ignoredHeaders = (delivery: string) => ({
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-github-delivery': delivery,
    'x-hub-signature-256': ignoredSignature,
  });
  const bare = await startBare();
  const serverRps: number[] = [];
  const bareRps: number[] = [];
  // Warm-up (JIT, connection pools) of both, not measured.
  await throughput(`${server.url}/webhooks/github`, ignoredBody, ignoredHeaders, 1000);
  await throughput(`${bare.url}/`, ignoredBody, ignoredHeaders, 1000);
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Every request has its own delivery id: verified, parsed, routed and ignored ("no mention").
    serverRps.push(await throughput(`${server.url}/webhooks/github`, ignoredBody, ignoredHeaders, ROUND_MS));
    bareRps.push(await throughput(`${bare.url}/`, ignoredBody, ignoredHeaders, ROUND_MS));
    // Adjacent rounds see the same machine load: their ratio is steadier than a ratio of medians.
    ratios.push(serverRps.at(-1)! / bareRps.at(-1)!);
    log(
      `round ${round + 1}: server ${serverRps.at(-1)!.toFixed(0)} req/s, bare ${bareRps.at(-1)!.toFixed(0)} req/s`,
    );
  }
  await bare.stop();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(ratios);

  // 1. Ack latency of accepted mentions at a steady rate while jobs run against the slow platform.
  log(`sending ${RATE} mentions/s for ${SECONDS} s`);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const total = SECONDS * RATE;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = Buffer.from(commentPayload(100_000 + i, `@review-bot job ${i}: please review`));
    const sent = performance.now();
    pending.push(
      post(agent, `${server.url}/webhooks/github`, body, headers(body, `mention-${i}`))
        .then((status) => {
          latencies.push(performance.now() - sent);
          if (status !== 200) errors += 1;
        })
        .catch(() => {
          errors += 1;
        }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const result = {
    mentions: total,
    ratePerSecond: RATE,
    ackMs: {
      p50: Number(percentile(latencies, 50).toFixed(2)),
      p99: Number(percentile(latencies, 99).toFixed(2)),
      max: Number((latencies.at(-1) ?? 0).toFixed(2)),
    },
    errors,
    ignoredThroughput: {
      serverRps: Math.round(median(serverRps)),
      bareRps: Math.round(median(bareRps)),
      ratio: Number(ratio.toFixed(2)),
    },
    idleRssMb: Number(idleRssMb.toFixed(1)),
    targets: { p99Ms: 10, ratio: 0.6, idleRssMb: 120 },
    pass: percentile(latencies, 99) <= 10 && ratio >= 0.6 && idleRssMb <= 120 && errors === 0,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await server.stop('SIGKILL');
  await llm.close();
  await github.close();
  rmSync(root, { recursive: true, force: true });
}

await main();
