/**
 * The run's sandbox launcher (root servers with a pids cgroup): every command of a run starts in the
 * run's one cgroup, a fork bomb is bounded, no descriptor is inherited, timeouts, abort and `close`
 * end commands, and the launcher's commands die when the server dies. The process-death case spawns
 * `dist/` (run `npm run build` first, like the e2e tests).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from './detect.js';
import { runToolCommand } from './index.js';
import { RUN_PIDS_MAX, RunLauncher } from './launcher.js';
import type { ToolSandbox } from './types.js';

const status = await probeSandbox('auto');
const withCgroup = status.kind === 'bwrap' && status.pidsCgroup !== undefined;

/** Host-side pids cgroup path of the process whose command line contains `marker`, if one runs. */
function cgroupOf(marker: string): string | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(marker)) continue;
      const line = readFileSync(`/proc/${entry}/cgroup`, 'utf8')
        .split('\n')
        .find((l) => /^\d+:pids:/.test(l) || l.startsWith('0::'));
      return line?.replace(/^\d+:[^:]*:/, '');
    } catch {
      // gone
    }
  }
  return undefined;
}

async function waitFor<T>(probe: () => T | undefined, ms = 5000): Promise<T | undefined> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

let base: string;
let workspace: string;
let home: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'sandbox-launcher-')));
  workspace = path.join(base, 'ws');
  home = path.join(base, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!withCgroup)('run launcher (root server with a pids cgroup)', () => {
  const sandbox: ToolSandbox = { status, networkHosts: [] };
  const run = (launcher: RunLauncher, command: string, timeoutMs = 10_000, signal?: AbortSignal) =>
    runToolCommand(command, { workspace, home, timeoutMs, sandbox, launcher, ...(signal ? { signal } : {}) });

  it('starts every command of a run in the run’s one cgroup, limited to RUN_PIDS_MAX, removed on close', async () => {
    const launcher = new RunLauncher();
    const seen: string[] = [];
    for (const mark of ['31411', '31412']) {
      const running = run(launcher, `sleep 2.${mark}; echo done`);
      const cgroup = await waitFor(() => cgroupOf(`sleep 2.${mark}`));
      expect(cgroup).toBeDefined();
      seen.push(cgroup!);
      expect((await running).output).toBe('done\n');
    }
    expect(seen[0]).toBe(seen[1]);
    const parent = (status as { pidsCgroup: string }).pidsCgroup;
    const dir = path.join(parent, path.basename(seen[0]!));
    expect(seen[0]!.endsWith(`/reviewbot-sandbox/${path.basename(dir)}`)).toBe(true);
    expect(readFileSync(path.join(dir, 'pids.max'), 'utf8').trim()).toBe(String(RUN_PIDS_MAX));
    await launcher.close();
    expect(existsSync(dir)).toBe(false);
    await expect(run(launcher, 'true')).rejects.toThrow(/closed/);
  });

  it('bounds a fork bomb, passes no inherited descriptor, and the run goes on afterwards', async () => {
    const launcher = new RunLauncher();
    try {
      const bomb = await run(launcher, 'f(){ f|f& }; f; sleep 2; echo bomb-done', 20_000);
      expect(bomb.timedOut).toBe(false);
      expect(bomb.output).toMatch(/Cannot fork|bomb-done/);
      // `ls` opens 3 itself to read the directory; anything else would have been inherited.
      expect((await run(launcher, 'ls /proc/self/fd | tr "\\n" " "')).output.trim()).toBe('0 1 2 3');
      const after = await run(launcher, 'echo still-works; exit 3');
      expect(after).toMatchObject({ output: 'still-works\n', exitCode: 3, timedOut: false });
    } finally {
      await launcher.close();
    }
  });

  it('kills a command at its timeout, on abort, and when the run closes', async () => {
    const launcher = new RunLauncher();
    const timedOut = await run(launcher, 'sleep 31413', 300);
    expect(timedOut).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    const controller = new AbortController();
    const aborted = run(launcher, 'sleep 31414', 30_000, controller.signal);
    await waitFor(() => cgroupOf('sleep 31414'));
    controller.abort(new Error('run aborted'));
    await expect(aborted).rejects.toThrow('run aborted');
    const pending = run(launcher, 'sleep 31415', 30_000).catch((error: unknown) => error);
    await waitFor(() => cgroupOf('sleep 31415'));
    await launcher.close();
    expect(String(await pending)).toMatch(/launcher exited/);
    for (const mark of ['31413', '31414', '31415'])
      expect(await waitFor(() => (cgroupOf(`sleep ${mark}`) ? undefined : true))).toBe(true);
  });

  it('ends the commands of a server that dies (launcher gone with its IPC channel)', async () => {
    const dist = path.resolve('dist/src/agent/sandbox/index.js');
    expect(existsSync(dist), 'run `npm run build` first').toBe(true);
    // The marker is computed, so this server's own command line does not match it; random per run,
    // so a process a crashed earlier run left behind cannot be taken for this one's.
    const BASE = 400_000 + Math.floor(Math.random() * 500_000);
    const mark = `sleep ${BASE + 6}`;
    const script = `
      const { RunLauncher, runToolCommand } = await import(${JSON.stringify(dist)});
      const launcher = new RunLauncher();
      const sandbox = ${JSON.stringify(sandbox)};
      void runToolCommand('sleep ' + (${BASE} + 6), { workspace: ${JSON.stringify(workspace)}, home: ${JSON.stringify(home)}, timeoutMs: 60000, sandbox, launcher });
      setInterval(() => {}, 1000);
    `;
    const server = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    try {
      expect(await waitFor(() => cgroupOf(mark), 10_000)).toBeDefined();
    } finally {
      server.kill('SIGKILL');
    }
    // Event-driven (the launcher's IPC channel closes), but a loaded machine may take seconds.
    expect(await waitFor(() => (cgroupOf(mark) ? undefined : true), 20_000)).toBe(true);
  });
});
