/**
 * A run's sandbox launcher: one small Node process per agent run, moved into the run's pids cgroup
 * once, that spawns each sandboxed command (the bwrap argv) as its own child. Commands inherit the
 * cgroup at fork, so no command pays the cgroup v1 migration (several ms of
 * `cgroup_threadgroup_rwsem` / `synchronize_rcu` each). The process limit then applies to the whole
 * run: every command of one run (and the launcher's own threads) share `pids.max`
 * (`RUN_PIDS_MAX`).
 *
 * The launcher has an empty environment and /dev/null as its standard descriptors; it dies (killing
 * its commands' process groups) when its IPC channel disconnects — when this process exits or dies
 * — and bwrap's `--die-with-parent` then takes each sandbox down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SANDBOX_MAX_PROCESSES } from './bwrap-args.js';
import { createPidsCgroup } from './pids-cgroup.js';
import { MAX_CAPTURE_BYTES, type RunProcessOptions, type ShellOutcome } from './run-process.js';

/**
 * `pids.max` of a run's cgroup: the per-command limit, plus bwrap, the descriptor closer and the
 * launcher itself (a Node process counts each of its threads: main, V8 workers, libuv pool).
 */
export const RUN_PIDS_MAX = SANDBOX_MAX_PROCESSES + 32;

/** Messages from the launcher, by command id. */
type LauncherMessage =
  | { id: number; type: 'data'; chunk: Uint8Array }
  | { id: number; type: 'error'; message: string; code?: string }
  | { id: number; type: 'done'; exitCode: number | null; signal: NodeJS.Signals | null; dropped: number };

/** The launcher's program (run with `node -e`, no modules of ours). */
const LAUNCHER_SOURCE = `
const { spawn } = require('node:child_process');
const CAP = ${MAX_CAPTURE_BYTES};
const running = new Map();
const killGroup = (child) => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} };
const killAll = () => { for (const child of running.values()) killGroup(child); };
// A message to a server that is gone must not throw (an uncaught error would end the launcher
// without ending its commands): sent only while connected, failures passed to a callback.
const send = (message) => { if (process.connected) process.send(message, undefined, undefined, () => {}); };
process.on('disconnect', () => { killAll(); process.exit(0); });
process.on('uncaughtException', () => { killAll(); process.exit(1); });
process.on('message', (m) => {
  if (m.type === 'kill') { const child = running.get(m.id); if (child) killGroup(child); return; }
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } catch (error) {
    send({ id: m.id, type: 'error', message: String(error && error.message), code: error && error.code });
    return;
  }
  running.set(m.id, child);
  let captured = 0, dropped = 0, ended = false;
  const end = (message) => {
    if (ended) return;
    ended = true;
    running.delete(m.id);
    send(message);
  };
  const collect = (chunk) => {
    if (captured >= CAP) { dropped += chunk.length; return; }
    captured += chunk.length;
    send({ id: m.id, type: 'data', chunk });
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.once('error', (error) => end({ id: m.id, type: 'error', message: error.message, code: error.code }));
  child.once('exit', () => {
    setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); }, 2000).unref();
  });
  child.once('close', (exitCode, signal) => end({ id: m.id, type: 'done', exitCode, signal, dropped }));
});
`;

interface Pending {
  collect(chunk: Uint8Array): void;
  error(error: Error): void;
  done(exitCode: number | null, signal: NodeJS.Signals | null, dropped: number): void;
}

/** A started launcher inside its cgroup. */
class Launcher {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly child: ChildProcess) {
    child.unref();
    this.channel(false);
    child.on('message', (message: LauncherMessage) => {
      const entry = this.pending.get(message.id);
      if (!entry) return;
      if (message.type === 'data') entry.collect(message.chunk);
      else if (message.type === 'error')
        entry.error(Object.assign(new Error(message.message), { code: message.code }));
      else entry.done(message.exitCode, message.signal, message.dropped);
    });
    child.once('exit', () => {
      for (const entry of this.pending.values()) entry.error(new Error('the sandbox launcher exited'));
      this.pending.clear();
    });
  }

  /** Keeps this process alive only while a command runs. */
  private channel(ref: boolean): void {
    const channel = this.child.channel as { ref(): void; unref(): void } | null | undefined;
    if (ref) channel?.ref();
    else channel?.unref();
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.child.connected;
  }

  run(file: string, args: readonly string[], options: RunProcessOptions): Promise<ShellOutcome> {
    return new Promise((resolve, reject) => {
      options.signal?.throwIfAborted();
      const id = this.nextId++;
      const chunks: Buffer[] = [];
      let timedOut = false;
      const kill = () => {
        if (this.child.connected) this.child.send({ type: 'kill', id });
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
      options.signal?.addEventListener('abort', kill, { once: true });
      const finish = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', kill);
        this.pending.delete(id);
        if (this.pending.size === 0) this.channel(false);
      };
      this.pending.set(id, {
        collect: (chunk) => chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
        error: (error) => {
          finish();
          reject(error);
        },
        done: (exitCode, signal, dropped) => {
          finish();
          if (options.signal?.aborted) {
            reject(options.signal.reason);
            return;
          }
          let output = Buffer.concat(chunks).toString('utf8');
          if (dropped > 0) output += `\n… [${dropped} more bytes of output discarded]`;
          resolve({ output, exitCode, signal, timedOut });
        },
      });
      this.channel(true);
      this.child.send({ type: 'run', id, file, args: [...args], cwd: options.cwd });
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.ref();
    // Disconnecting makes the launcher kill its commands and exit.
    if (this.child.connected) this.child.disconnect();
    else this.child.kill('SIGKILL');
    await exited;
  }
}

/**
 * The launcher of one run (make one per agent run and `close` it with the run), started on first use
 * inside a new pids cgroup (limit `RUN_PIDS_MAX`) under the detected parent. `close` ends it and its
 * commands and removes the cgroup; a closed launcher cannot be used again.
 */
export class RunLauncher {
  private started: Promise<{ launcher: Launcher; removeCgroup(): Promise<void> }> | undefined;
  private closed = false;

  /**
   * Runs `file args` as a child of the launcher (empty environment, its own process group); resolves
   * like `runProcess`. `cgroupParent` (from detection) is used by the first call.
   * @throws Error when the launcher cannot start or exits, or the abort reason.
   */
  async run(
    cgroupParent: string,
    file: string,
    args: readonly string[],
    options: RunProcessOptions,
  ): Promise<ShellOutcome> {
    if (this.closed) throw new Error('the sandbox launcher of this run is closed');
    this.started ??= this.start(cgroupParent);
    const { launcher } = await this.started;
    if (!launcher.alive) throw new Error('the sandbox launcher exited');
    return launcher.run(file, args, options);
  }

  private async start(cgroupParent: string): Promise<{ launcher: Launcher; removeCgroup(): Promise<void> }> {
    const cgroup = await createPidsCgroup(cgroupParent, RUN_PIDS_MAX);
    if (!cgroup) throw new Error(`cannot create a pids cgroup under ${cgroupParent}`);
    const child = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], {
      cwd: '/',
      env: {},
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    const launcher = new Launcher(child);
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      // The one migration of the run: every command the launcher spawns is born in the cgroup.
      await writeFile(path.join(cgroup.dir, 'cgroup.procs'), String(child.pid));
    } catch (error) {
      await launcher.close().catch(() => undefined);
      await cgroup.remove();
      throw error;
    }
    return { launcher, removeCgroup: () => cgroup.remove() };
  }

  /** Ends the launcher (killing any command still running) and removes the run's cgroup. */
  async close(): Promise<void> {
    this.closed = true;
    const started = await this.started?.catch(() => undefined);
    if (!started) return;
    await started.launcher.close();
    await started.removeCgroup();
  }
}
