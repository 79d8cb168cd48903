import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunProcesses, RUN_CLOSED_EXIT_CODE } from './run-processes.js';

const dir = mkdtempSync(path.join(tmpdir(), 'run-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
};

describe('the processes of a run', () => {
  it('stopAll kills a registered command and the daemon it left in a new session', async () => {
    const identity = path.join(dir, 'identity-1');
    const log = path.join(dir, 'tick-1.log');
    const processes = await openRunProcesses(identity);
    // The command leaves a daemon in a new session, then waits; its parent (like Claude Code's
    // shell after Claude Code died) is not the one that will stop it.
    const script = `setsid sh -c 'while :; do echo x >> "$1"; sleep 0.05; done' sh "${log}" >/dev/null 2>&1 & sleep 600`;
    const argv = processes.registered(['/bin/sh', '-c', script, 'sh', identity]);
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore', detached: true });
    child.unref();
    const deadline = Date.now() + 10_000;
    while (size(log) <= 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(size(log)).toBeGreaterThan(0);

    await processes.stopAll();
    const after = size(log);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(size(log)).toBe(after);
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
  });

  it('a command wrapped before stopAll and started after it does not run', async () => {
    const identity = path.join(dir, 'identity-2');
    const marker = path.join(dir, 'ran');
    const processes = await openRunProcesses(identity);
    const argv = processes.registered(['/bin/sh', '-c', `echo ran > "${marker}"`, 'sh', identity]);
    // The registry directory is gone after stopAll: registering fails, so the command never runs.
    await processes.stopAll();
    const result = spawnSync(argv[0] as string, argv.slice(1), { stdio: 'ignore' });
    expect(result.status).toBe(RUN_CLOSED_EXIT_CODE);
    expect(() => readFileSync(marker)).toThrow();
  });
});
