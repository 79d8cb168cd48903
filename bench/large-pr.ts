/**
 * Large pull request benchmark (CONTRACT §15): the 3,000-file pull request of the end-to-end test
 * (`test/support/large-pr.ts`) reviewed in this process by `executeReview` + `postReview` against
 * the fake GitHub and a scripted model on the fake Anthropic API. The fakes (and the fixture) run in
 * a child process, so this process's peak RSS is the bot's. Prints one JSON object on stdout:
 *
 * - `shownShare`: share of the non-skipped diff lines shown to the model (target 1.0), with the
 *   same-run baseline of the old single prompt (whole diff in diff order, cut at 400,000 chars);
 * - `agentRuns` (the receipt's: runs, not model requests; `modelRequests` beside it; both count the
 *   one synthesis call that writes the review's single summary, §18: `synthesisCalls`, and
 *   `opensWithSynthesis` when the posted body opens with its answer; `pass` requires both),
 *   `maxPromptTokens` (largest request: system prompt, messages and tool definitions) and
 *   `maxDiffTokens` (largest part's diff), both by `estimateTokens` (the budget's own estimator),
 *   against `review.max_diff_tokens` (`pass` requires both within it);
 * - `ownCpuMs`: the bot's own processing, i.e. this process's CPU time over the review and the
 *   posting (target ≤ 3,000 ms: the figure `pass` judges, because wall time here also holds the
 *   fakes' and the local git server's work on the same cores), beside `wallMs`, `modelMs` (time in agent runs) and
 *   `wallExcludingModelMs` (which also holds the waits on the fake GitHub and git server: the
 *   shallow clone of the 3,000-file head is most of it), `fetchMs` (pull request, clone and file
 *   list, fetched concurrently) and `wallAfterFetchExcludingModelMs` (triage, parts, prompts,
 *   filtering, receipt and posting);
 * - `peakRssMb` (target ≤ 400);
 * - `secondPr` (CONTRACT §19): a second pull request of the same repository (one more file on the
 *   first's head) reviewed in the same base directory, so its head comes from the repository's
 *   object store and its workspace from the spare checkout: `fetchMs`, `wallMs` and `fetchShare`
 *   (of wall time; also excluding model time), beside the first pull request's shares as the
 *   same-run baseline (a full fetch of the head), `spareWaitMs` (the untimed wait for the spare
 *   checkout the first workspace started building in the background), and git alone:
 *   `workspaceMs`/`workspaceShare` (until the workspace is ready), `fromSpare`, and the first pull
 *   request's `firstPrWorkspaceMs`/`firstPrWorkspaceShare`.
 *
 * Progress goes to stderr. Exit code 0 whether or not the targets are met.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createApiRunner } from '../src/agent/api-runner.js';
import { loadCatalogueRates } from '../src/agent/pricing.js';
import type { AgentRunner } from '../src/agent/types.js';
import { buildPlatform } from '../src/cli/build-platform.js';
import { DEFAULT_MAX_DIFF_TOKENS } from '../src/config/schema.js';
import { silentLogger } from '../src/logger.js';
import { annotateDiff } from '../src/review/annotate.js';
import { toFileDiffs } from '../src/diff/diff.js';
import { executeReview } from '../src/review/execute-review.js';
import { DEFAULT_LIMITS } from '../src/review/limits.js';
import { estimateTokens } from '../src/review/parts.js';
import { postReview } from '../src/review/post-review.js';
import { startFakeAnthropic, type RecordedLlmRequest } from '../test/support/fake-llm/index.js';
import { startFakeGitHub } from '../test/support/fake-github/index.js';
import { commitToBranch } from '../test/support/git-fixtures.js';
import { createLargePr } from '../test/support/large-pr.js';
import { setSpareTreesByDefault, spareBuildsSettled } from '../src/workspace/workspace.js';

const TOKEN = 'ghp_benchLargePrToken0123456789abcdef';
const KEY = 'sk-bench-large-pr-0123456789';
const TARGETS = { shownShare: 1, ownCpuMs: 3000, peakRssMb: 400 };

interface Ready {
  type: 'ready';
  githubUrl: string;
  llmUrl: string;
}
interface Report {
  type: 'report';
  agentRuns: number;
  synthesisRequests: number;
  shownShare: number;
  repeatedMarkers: number;
  skippedShown: boolean;
  maxPromptTokens: number;
  maxDiffTokens: number;
  baselineShare: number;
}

function log(message: string): void {
  process.stderr.write(`[bench:large-pr] ${message}\n`);
}

/** The summary the scripted model writes when asked without tools (the synthesis call, §18). */
const SYNTHESIS = 'One summary of the whole pull request.';

/** The scripted model: one submit_review per part's run; text for the synthesis call (no tools). */
function reviewer(request: RecordedLlmRequest) {
  if (request.toolNames.length === 0) return { text: SYNTHESIS };
  const source = /=== (src\/\S+) \(added/.exec(request.messages[0]?.text ?? '')?.[1];
  const comments = source ? [{ path: source, line: 1, side: 'RIGHT', body: 'Name this constant.' }] : [];
  return { toolCalls: [{ name: 'submit_review', input: { summary: 'Looked at this part.', comments } }] };
}

/** Child: builds the fixture, serves the fakes, reports what the model was shown. */
async function runFakes(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'bench-large-pr-'));
  const pr = createLargePr(path.join(root, 'repos'));
  const github = await startFakeGitHub({ token: TOKEN, login: 'reviewbot-bench' });
  await github.addPullRequest({
    owner: 'acme',
    repo: 'monorepo',
    number: 7,
    bareRepoPath: pr.bareRepoPath,
    base: 'main',
    head: 'feature',
    title: 'A large change',
    body: '',
  });
  // A second pull request of the same repository (§19): one more file on top of the first's head.
  commitToBranch(pr.bareRepoPath, {
    branch: 'feature-2',
    from: 'origin/feature',
    message: 'a follow-up',
    changes: { write: { 'docs/FOLLOW-UP.md': 'One more note.\n' } },
  });
  await github.addPullRequest({
    owner: 'acme',
    repo: 'monorepo',
    number: 8,
    bareRepoPath: pr.bareRepoPath,
    base: 'main',
    head: 'feature-2',
    title: 'A follow-up',
    body: '',
  });
  const llm = await startFakeAnthropic({ apiKey: KEY, script: reviewer });
  process.send?.({ type: 'ready', githubUrl: github.url, llmUrl: llm.url } satisfies Ready);
  // The first review's requests end at `mark` (set before the second pull request is reviewed).
  let mark: number | undefined;
  process.on('message', (message: { type: string; baselineText?: string }) => {
    if (message.type === 'mark') {
      mark = llm.requests.length;
      process.send?.({ type: 'marked' });
      return;
    }
    if (message.type !== 'report') return;
    const requests = llm.requests.slice(0, mark ?? llm.requests.length);
    const counts = new Map<string, number>();
    let skippedShown = false;
    let maxPromptTokens = 0;
    let maxDiffTokens = 0;
    for (const request of requests) {
      const text = request.messages.map((m) => m.text).join('\n');
      for (const m of text.matchAll(/\b(?:mk|base)_\w+/g)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
      if (JSON.stringify(request.body).includes('skip_')) skippedShown = true;
      // Prompt and diff measured with the same estimator the budget uses (3.5 characters a token).
      const body = request.body as { system?: unknown; tools?: unknown };
      const system = Array.isArray(body.system)
        ? (body.system as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n')
        : typeof body.system === 'string'
          ? body.system
          : '';
      const promptChars = system.length + text.length + JSON.stringify(body.tools ?? []).length;
      maxPromptTokens = Math.max(maxPromptTokens, estimateTokens(promptChars));
      const diff = /kind="diff">\n([\s\S]*?)\n<\/untrusted-data-/.exec(text)?.[1] ?? '';
      maxDiffTokens = Math.max(maxDiffTokens, estimateTokens(diff.length));
    }
    const shown = [...pr.reviewMarkers].filter((m) => counts.has(m)).length;
    const baseline = new Set<string>();
    for (const m of (message.baselineText ?? '').matchAll(/\b(?:mk|base)_\w+/g)) baseline.add(m[0]);
    const baselineShown = [...pr.reviewMarkers].filter((m) => baseline.has(m)).length;
    const report: Report = {
      type: 'report',
      agentRuns: requests.length,
      synthesisRequests: requests.filter((r) => r.toolNames.length === 0).length,
      shownShare: shown / pr.reviewMarkers.size,
      repeatedMarkers: [...counts.values()].filter((n) => n > 1).length,
      skippedShown,
      maxPromptTokens,
      maxDiffTokens,
      baselineShare: baselineShown / pr.reviewMarkers.size,
    };
    process.send?.(report, () => {
      void Promise.all([llm.close(), github.close()]).finally(() => {
        rmSync(root, { recursive: true, force: true });
        process.exit(0);
      });
    });
  });
}

/** Union length of possibly overlapping [start, end] intervals, ms. */
function unionMs(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [start, end] = sorted[0] ?? [0, 0];
  for (const [s, e] of sorted.slice(1)) {
    if (s > end) {
      total += end - start;
      [start, end] = [s, e];
    } else end = Math.max(end, e);
  }
  return total + (end - start);
}

/** Wraps a runner to record when it waited for the model (each `run` call). */
function timedRunner(runner: AgentRunner, intervals: Array<[number, number]>): AgentRunner {
  return {
    async run(options) {
      const start = performance.now();
      try {
        return await runner.run(options);
      } finally {
        intervals.push([start, performance.now()]);
      }
    },
  };
}

async function main(): Promise<void> {
  log('building the 3,000-file fixture and starting the fakes (child process)');
  const child = fork(fileURLToPath(import.meta.url), ['--fakes'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`fakes exited ${code}`)));
  });
  const env = { CODEHOST_TOKEN: TOKEN, CODEHOST_API_URL: ready.githubUrl, ANTHROPIC_API_KEY: KEY };
  const platform = await buildPlatform({ env, logger: silentLogger(), requested: 'github' });
  const inner = createApiRunner({
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    baseUrl: `${ready.llmUrl}/v1`,
    env,
  });
  await inner.preload?.();
  // Priced at the model's catalogue rates, so the receipt's cost (synthesis call included) is printed.
  const limits = { ...DEFAULT_LIMITS, rates: await loadCatalogueRates('anthropic', 'claude-sonnet-4-5') };
  const intervals: Array<[number, number]> = [];
  const baseDir = mkdtempSync(path.join(tmpdir(), 'bench-large-pr-ws-'));
  // As the standalone server does (`serve`): keep a spare checkout per repository.
  setSpareTreesByDefault(true);
  (globalThis as { gc?: () => void }).gc?.();

  log('reviewing');
  const cpuBefore = process.cpuUsage();
  let fetchedAt = 0;
  let workspaceAt = 0;
  const started = performance.now();
  const outcome = await executeReview({
    platform,
    runner: timedRunner(inner, intervals),
    repoFullName: 'acme/monorepo',
    prNumber: 7,
    baseDir,
    maxTurns: 10,
    logger: silentLogger(),
    limits,
    onEvent: (event) => {
      if (event.type !== 'phase') return;
      log(`${Math.round(performance.now() - started)} ms ${event.phase}: ${event.message}`);
      if (event.phase === 'diff' && /^\d+ files, /.test(event.message))
        fetchedAt = performance.now() - started;
      if (event.phase === 'workspace' && /^workspace of /.test(event.message))
        workspaceAt = performance.now() - started;
    },
  });
  log(`${Math.round(performance.now() - started)} ms reviewed; posting`);
  await postReview(platform, outcome, { repoFullName: 'acme/monorepo', prNumber: 7 }, silentLogger());
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  const modelMs = unionMs(intervals);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;

  await new Promise<void>((resolve) => {
    child.on('message', (m) => {
      if ((m as { type: string }).type === 'marked') resolve();
    });
    child.send({ type: 'mark' });
  });
  // §19: a second pull request of the same repository, in the same base directory (its store).
  // The spare checkout the first pull request's workspace started in the background is waited for
  // (not timed; its wait is printed): a new pull request normally arrives after it is built.
  const spareStarted = performance.now();
  await spareBuildsSettled();
  const spareWaitMs = Math.round(performance.now() - spareStarted);
  log('reviewing a second pull request of the same repository');
  const intervals2: Array<[number, number]> = [];
  let fetchedAt2 = 0;
  let workspaceAt2 = 0;
  let fromSpare2 = false;
  const started2 = performance.now();
  await executeReview({
    platform,
    runner: timedRunner(inner, intervals2),
    repoFullName: 'acme/monorepo',
    prNumber: 8,
    baseDir,
    maxTurns: 10,
    logger: silentLogger(),
    limits,
    onEvent: (event) => {
      if (event.type !== 'phase') return;
      if (event.phase === 'diff' && /^\d+ files, /.test(event.message))
        fetchedAt2 = performance.now() - started2;
      if (event.phase === 'workspace' && /^workspace of /.test(event.message)) {
        workspaceAt2 = performance.now() - started2;
        fromSpare2 = event.message.includes('(from the spare tree)');
      }
    },
  });
  const wall2 = performance.now() - started2;
  const model2 = unionMs(intervals2);
  await spareBuildsSettled();
  rmSync(baseDir, { recursive: true, force: true });
  const share = (fetch: number, wall: number) => Number((fetch / wall).toFixed(3));
  const secondPr = {
    wallMs: Math.round(wall2),
    fetchMs: Math.round(fetchedAt2),
    fetchShare: share(fetchedAt2, wall2),
    fetchShareExcludingModel: share(fetchedAt2, wall2 - model2),
    // The untimed wait for the first pull request's background spare checkout to be ready.
    spareWaitMs,
    // Git alone: ms until the workspace was ready (the fetch above also waits for the API's file
    // list), its share of wall time, and whether the spare checkout made it.
    workspaceMs: Math.round(workspaceAt2),
    workspaceShare: share(workspaceAt2, wall2),
    fromSpare: fromSpare2,
    firstPrWorkspaceMs: Math.round(workspaceAt),
    firstPrWorkspaceShare: share(workspaceAt, wallMs),
    // Same-run baseline: the first pull request, whose fetch is a full clone of the head.
    firstPrFetchShare: share(fetchedAt, wallMs),
    firstPrFetchShareExcludingModel: share(fetchedAt, wallMs - modelMs),
  };

  // Same-run baseline: the old single prompt (whole diff, diff order, 400,000-char cap).
  const files = await platform.listPullRequestFiles('acme/monorepo', 7);
  const baselineText = annotateDiff(toFileDiffs(files));
  const report = await new Promise<Report>((resolve) => {
    child.on('message', (m) => {
      if ((m as Report).type === 'report') resolve(m as Report);
    });
    child.send({ type: 'report', baselineText });
  });

  const receipt = outcome.result.receipt!;
  const waitExcludingModelMs = Math.round(wallMs - modelMs);
  const result = {
    files: files.length,
    skipped: receipt.files.skipped.length,
    reviewed: receipt.files.reviewed,
    notReviewed: receipt.files.notReviewed.length,
    shownShare: report.shownShare,
    baselineShownShare: Number(report.baselineShare.toFixed(4)),
    repeatedHunkLines: report.repeatedMarkers,
    skippedFileShown: report.skippedShown,
    agentRuns: receipt.agentRuns,
    modelRequests: report.agentRuns,
    synthesisCalls: report.synthesisRequests,
    opensWithSynthesis: outcome.result.body.startsWith(SYNTHESIS),
    costUsd: receipt.costUsd,
    maxPromptTokens: report.maxPromptTokens,
    maxDiffTokens: report.maxDiffTokens,
    budgetTokens: DEFAULT_MAX_DIFF_TOKENS,
    ownCpuMs: cpuMs,
    wallMs: Math.round(wallMs),
    modelMs: Math.round(modelMs),
    wallExcludingModelMs: waitExcludingModelMs,
    fetchMs: Math.round(fetchedAt),
    wallAfterFetchExcludingModelMs: Math.round(wallMs - fetchedAt - modelMs),
    peakRssMb: Math.round(peakRssMb),
    secondPr,
    targets: TARGETS,
    pass:
      report.shownShare >= TARGETS.shownShare &&
      report.synthesisRequests === 1 &&
      outcome.result.body.startsWith(SYNTHESIS) &&
      report.maxDiffTokens <= DEFAULT_MAX_DIFF_TOKENS &&
      report.maxPromptTokens <= DEFAULT_MAX_DIFF_TOKENS &&
      cpuMs <= TARGETS.ownCpuMs &&
      peakRssMb <= TARGETS.peakRssMb,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[2] === '--fakes') {
  await runFakes();
} else {
  await main();
  process.exit(0);
}
