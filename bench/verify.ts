/**
 * Verification benchmark (CONTRACT §22). On a 20,000-file repository made here:
 * 1. the per-run overhead of a disposable copy of the working tree, made and removed, for the three
 *    ways considered: the overlay `openDisposableTree` uses (plus what its launcher adds to each
 *    sandboxed command, against a plain sandboxed command: the same-run baseline), a `git worktree`
 *    checkout, and a `cp --reflink=auto` copy (target ≤ 300 ms per run);
 * 2. the wall time of `verifyFindings` for 5 findings with the fake model (each run: one `Bash`
 *    probe in the sandbox, then `submit_verification`), in parallel, against the slowest of the
 *    same runs one at a time (target: stage ≤ 1.2 × slowest single run), and the sequential sum.
 * The stage is timed with each fake reply delayed by 400 ms (runs wait on the model, as real ones
 * do) and with no delay (runs are pure CPU: on a machine with fewer free cores than findings the
 * parallel stage cannot reach the target then, and the figure shows how much CPU a run costs).
 * Prints one JSON object on stdout; progress on stderr. Exit code 0 whether or not targets are met.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFakeAnthropic } from '../test/support/fake-llm/index.js';
import { createApiRunner } from '../src/agent/api-runner.js';
import { probeSandbox, runToolCommand, type ToolSandbox } from '../src/agent/sandbox/index.js';
import { SecretMasker } from '../src/secrets.js';
import { openDisposableTree } from '../src/review/verify/disposable-tree.js';
import { verifyFindings, type VerifyConfig } from '../src/review/verify/verify-findings.js';
import type { Finding } from '../src/review/types.js';

const FILES = 20_000;
const RUNS = 7;
const FINDINGS = 5;
const TARGETS = { perRunMs: 300, stageToSlowest: 1.2 };
/** Latency of each fake model reply, ms (a real model takes seconds; 0 = CPU-bound runs). */
const MODEL_DELAYS_MS = [400, 0];

const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const round = (ms: number) => Math.round(ms * 10) / 10;

async function timed(run: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

function makeRepository(root: string): string {
  const repo = path.join(root, 'pr-1');
  execFileSync('git', ['init', '-q', repo]);
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(repo, 'src', `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.js`), `export const v${i} = ${i};\n`);
  }
  writeFileSync(path.join(repo, 'add.js'), 'export function add(x, y) {\n  return x - y;\n}\n');
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['-C', repo, 'add', '-A'], { env });
  execFileSync('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-qm', 'c'], {
    env,
  });
  return repo;
}

async function main(): Promise<void> {
  const status = await probeSandbox('auto');
  if (status.kind !== 'bwrap') throw new Error(`bench:verify needs bubblewrap (${status.kind})`);
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'bench-verify-')));
  const scratch = path.join(root, 'scratch');
  const home = path.join(root, 'home');
  mkdirSync(scratch);
  mkdirSync(home);
  try {
    log(`making a ${FILES}-file repository…`);
    const repo = makeRepository(root);
    const sandbox: ToolSandbox = { status, networkHosts: [] };
    const command = (ws: string, box: ToolSandbox) =>
      runToolCommand('true', { workspace: ws, home, timeoutMs: 30_000, sandbox: box });

    log('overlay: open + close, and one sandboxed command with and without it…');
    const overlayOpenClose: number[] = [];
    const overlayCommand: number[] = [];
    const plainCommand: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      plainCommand.push(await timed(() => command(repo, sandbox)));
      let tree: Awaited<ReturnType<typeof openDisposableTree>> | undefined;
      const open = await timed(async () => {
        tree = await openDisposableTree({ workspace: repo, sandbox: status, parentDir: scratch });
      });
      overlayCommand.push(await timed(() => command(repo, tree!.sandbox)));
      const close = await timed(() => tree!.close());
      overlayOpenClose.push(open + close);
    }
    log('git worktree add + remove…');
    const worktree: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const dir = path.join(scratch, `wt${i}`);
      worktree.push(
        await timed(() => {
          execFileSync('git', ['-C', repo, 'worktree', 'add', '-q', '--detach', dir]);
          execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', dir]);
        }),
      );
    }
    log('cp --reflink=auto + rm…');
    const reflink: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const dir = path.join(scratch, `cp${i}`);
      reflink.push(
        await timed(() => {
          spawnSync('cp', ['-a', '--reflink=auto', repo, dir]);
          rmSync(dir, { recursive: true, force: true });
        }),
      );
    }

    log(`the stage: ${FINDINGS} findings with the fake model…`);
    const stages: Record<string, unknown> = {};
    for (const delayMs of MODEL_DELAYS_MS)
      stages[`modelDelay${delayMs}ms`] = await timeStage(repo, sandbox, scratch, delayMs);

    const perRunMs = median(overlayOpenClose) + Math.max(0, median(overlayCommand) - median(plainCommand));
    const result = {
      files: FILES,
      disposableTree: {
        chosen: 'overlay',
        overlay: {
          openCloseMedianMs: round(median(overlayOpenClose)),
          perCommandExtraMs: round(median(overlayCommand) - median(plainCommand)),
          perRunMs: round(perRunMs),
        },
        baseline: { plainSandboxCommandMs: round(median(plainCommand)) },
        gitWorktreeMedianMs: round(median(worktree)),
        reflinkCopyMedianMs: round(median(reflink)),
        target: TARGETS.perRunMs,
        pass: perRunMs <= TARGETS.perRunMs,
      },
      stage: stages,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Times `verifyFindings` for `FINDINGS` findings: in parallel, one at a time, and each alone. */
async function timeStage(repo: string, sandbox: ToolSandbox, scratch: string, delayMs: number) {
  const fake = await startFakeAnthropic({ apiKey: 'bench-key' });
  const probe = 'printf "import {add} from \\"./add.js\\"; console.log(add(2, 3));" > p.mjs && node p.mjs';
  fake.setScript((request) => {
    const result = request.toolResults[0];
    return result === undefined
      ? { delayMs, toolCalls: [{ name: 'Bash', input: { command: probe } }] }
      : {
          delayMs,
          toolCalls: [
            {
              name: 'submit_verification',
              input: {
                verdict: 'confirmed',
                command: 'node p.mjs',
                output: result.content,
                explanation: 'x',
              },
            },
          ],
        };
  });
  const runner = createApiRunner({
    provider: 'anthropic',
    model: 'm',
    baseUrl: `${fake.url}/v1`,
    env: { ANTHROPIC_API_KEY: 'bench-key' },
  });
  const findings: Finding[] = Array.from(
    { length: FINDINGS },
    (_, i) => ({ path: 'add.js', line: 2, side: 'RIGHT', body: `bug ${i}`, severity: 'P1' }) as Finding,
  );
  const config: VerifyConfig = {
    verify: 'on',
    verify_min_severity: 'P1',
    verify_max: FINDINGS,
    verify_timeout_seconds: 120,
    max_parallel_runs: FINDINGS,
  };
  const stage = (parallel: number, list: Finding[]) =>
    verifyFindings({
      findings: list,
      tree: repo,
      config: { ...config, max_parallel_runs: parallel },
      runner,
      sandbox,
      masker: new SecretMasker(),
      scratchDir: scratch,
    });
  log(`the stage: ${FINDINGS} findings, model replies after ${delayMs} ms…`);
  await stage(1, findings.slice(0, 1)); // warm-up: SDK load, first sandbox
  const single: number[] = [];
  for (const one of findings) single.push((await stage(1, [one])).receipt.durationMs);
  const sequential = await stage(1, findings);
  const parallel = await stage(FINDINGS, findings);
  await fake.close();
  const slowest = Math.max(...single);
  return {
    findings: FINDINGS,
    parallelMs: parallel.receipt.durationMs,
    slowestSingleRunMs: slowest,
    singleRunsMs: single,
    sequentialMs: sequential.receipt.durationMs,
    ratio: round(parallel.receipt.durationMs / slowest),
    target: TARGETS.stageToSlowest,
    pass: parallel.receipt.durationMs <= TARGETS.stageToSlowest * slowest,
    confirmed: parallel.receipt.confirmed,
  };
}

await main();
