/**
 * Sandbox benchmark (issue 12): what the bubblewrap sandbox adds to one WORKER `Bash` call. Runs
 * `true` and `node -e 0` through the real tool paths — unsandboxed (`agent.sandbox: off`: `/bin/sh
 * -c` with the scrubbed environment) and sandboxed (`runToolCommand` under the detected sandbox with
 * the run's `RunLauncher`, as the API runner calls it: where this (root) server needs a pids cgroup,
 * commands start from the run's launcher, which joined the run's cgroup once before the samples) —
 * interleaved in the same run, and prints one JSON object on stdout:
 * `{"sandbox":"bwrap 0.8.0","runs":N,"true":{"plainMs":{"p50","p99"},"sandboxedMs":{…},"addedP50Ms"},
 * "node":{…},"targetAddedP50Ms":15,"pass":true}`; with a pids cgroup, also
 * `sandboxedNoPidsCgroupMs` / `addedP50NoPidsCgroupMs` (the non-root path: direct spawn, no cgroup).
 * Progress goes to stderr. Exit 0 whether or not the target is met; exit 1 when no sandbox works
 * here (nothing to measure).
 */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { probeSandbox, RunLauncher, runToolCommand, type ToolSandbox } from '../src/agent/sandbox/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 10;
const TARGET_ADDED_P50_MS = 15;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[index] ?? 0) * 100) / 100;
}

function summary(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function main(): Promise<number> {
  const status = await probeSandbox('auto');
  if (status.kind !== 'bwrap') {
    process.stderr.write(
      `no working sandbox here: ${status.kind === 'unavailable' ? status.reason : status.kind}\n`,
    );
    return 1;
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'bench-sandbox-'));
  const workspace = path.join(scratch, 'ws');
  const home = path.join(scratch, 'home');
  await mkdir(workspace);
  await mkdir(home);
  const off: ToolSandbox = { status: { kind: 'off' }, networkHosts: [] };
  const on: ToolSandbox = { status, networkHosts: [] };
  // A root server starts commands from its run's launcher inside a pids cgroup (the kernel exempts
  // root from RLIMIT_NPROC); a non-root server spawns them directly: measure that path too.
  const launcher = new RunLauncher();
  const { pidsCgroup, ...withoutCgroup } = status;
  const sides: Array<[string, ToolSandbox]> = [
    ['plain', off],
    ['sandboxed', on],
    ...(pidsCgroup
      ? [['sandboxedNoPidsCgroup', { status: withoutCgroup, networkHosts: [] }] as [string, ToolSandbox]]
      : []),
  ];
  const commands = { true: 'true', node: `'${process.execPath}' -e 0` } as const;
  const result: Record<string, unknown> = {
    sandbox: `bwrap ${status.version}`,
    runs: RUNS,
    pidsCgroup: status.pidsCgroup !== undefined,
  };
  let pass = true;
  try {
    for (const [name, command] of Object.entries(commands)) {
      const samples: Record<string, number[]> = Object.fromEntries(sides.map(([side]) => [side, []]));
      for (let i = 0; i < WARMUP + RUNS; i++) {
        // Interleaved, so machine load affects both sides alike.
        for (const [side, sandbox] of sides) {
          const started = performance.now();
          const outcome = await runToolCommand(command, {
            workspace,
            home,
            timeoutMs: 30_000,
            sandbox,
            ...(side === 'sandboxed' ? { launcher } : {}),
          });
          const elapsed = performance.now() - started;
          if (outcome.exitCode !== 0) throw new Error(`${side} ${name} failed: ${outcome.output}`);
          if (i >= WARMUP) samples[side]?.push(elapsed);
        }
      }
      const plainMs = summary(samples.plain ?? []);
      const sandboxedMs = summary(samples.sandboxed ?? []);
      const addedP50Ms = Math.round((sandboxedMs.p50 - plainMs.p50) * 100) / 100;
      const noCgroup = samples.sandboxedNoPidsCgroup ? summary(samples.sandboxedNoPidsCgroup) : undefined;
      result[name] = {
        plainMs,
        sandboxedMs,
        addedP50Ms,
        ...(noCgroup
          ? {
              sandboxedNoPidsCgroupMs: noCgroup,
              addedP50NoPidsCgroupMs: Math.round((noCgroup.p50 - plainMs.p50) * 100) / 100,
            }
          : {}),
      };
      pass &&= addedP50Ms <= TARGET_ADDED_P50_MS;
      process.stderr.write(`${name}: plain p50 ${plainMs.p50} ms, sandboxed p50 ${sandboxedMs.p50} ms\n`);
    }
  } finally {
    await launcher.close();
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify({ ...result, targetAddedP50Ms: TARGET_ADDED_P50_MS, pass })}\n`);
  return 0;
}

process.exitCode = await main();
