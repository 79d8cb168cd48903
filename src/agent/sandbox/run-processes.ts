/**
 * The sandboxes one agent run started where another program (Claude Code) runs the commands: each
 * wrapped command registers its PID (which becomes bwrap's) in a directory of the run before it
 * execs, and `stopAll` kills every registered sandbox — bwrap, the sandbox's init and everything
 * below it — and waits until they are gone (CONTRACT §16: no process an agent started outlives its
 * run). A command that registers after `stopAll` began does not start at all.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How long `stopAll` keeps killing and waiting before it gives up, ms. */
export const STOP_TIMEOUT_MS = 10_000;

/** Exit status of a wrapped command refused because its run has ended. */
export const RUN_CLOSED_EXIT_CODE = 125;

/** Name of the marker `stopAll` writes before it looks for processes. */
const CLOSED_MARKER = 'closed';

/**
 * Registers `$$` (the PID that execs into the command) in `$1`, then refuses to run when the run
 * has ended; else execs the rest of its arguments.
 */
const REGISTER_SCRIPT = `echo > "$1/$$" && [ ! -e "$1/${CLOSED_MARKER}" ] || exit ${RUN_CLOSED_EXIT_CODE}; shift; exec "$@"`;

/** A process as `/proc/<pid>/stat` shows it. */
interface ProcStat {
  ppid: number;
  state: string;
  /** Start time since boot, clock ticks: with the PID, the identity of a process. */
  start: string;
}

async function readStat(pid: number): Promise<ProcStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses; fields follow the last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, start] = [fields[0], fields[1], fields[19]];
  if (state === undefined || ppid === undefined || start === undefined) return undefined;
  return { state, ppid: Number(ppid), start };
}

/** Every live process: PID → stat. */
async function allProcesses(): Promise<Map<number, ProcStat>> {
  const out = new Map<number, ProcStat>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readStat(Number(entry));
    if (stat) out.set(Number(entry), stat);
  }
  return out;
}

/** The registry of one run's sandboxes. */
export interface RunProcesses {
  /** `argv` preceded by its registration (a `/bin/sh` that records its PID, then execs `argv`). */
  registered(argv: readonly string[]): string[];
  /**
   * Refuses new commands, kills every registered sandbox and all processes below it (SIGKILL), and
   * waits until none is left; then removes the registry.
   * @throws Error when processes are still alive after `STOP_TIMEOUT_MS`.
   */
  stopAll(): Promise<void>;
}

/**
 * Opens the registry of a run. `identity` is an argument every registered command line holds
 * (the run's private HOME, made for the run): a registered PID whose command line lacks it has
 * ended and been reused, and is left alone.
 */
export async function openRunProcesses(identity: string, timeoutMs = STOP_TIMEOUT_MS): Promise<RunProcesses> {
  const dir = await mkdtemp(path.join(tmpdir(), 'reviewbot-pids-'));

  /** Registered PIDs that still run a command line of this run. */
  async function registeredRoots(): Promise<number[]> {
    const roots: number[] = [];
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      if (!/^\d+$/.test(entry)) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.split('\0').includes(identity)) roots.push(Number(entry));
    }
    return roots;
  }

  return {
    registered: (argv) => ['/bin/sh', '-c', REGISTER_SCRIPT, 'sh', dir, ...argv],
    async stopAll() {
      await writeFile(path.join(dir, CLOSED_MARKER), '');
      // PID → start time of every process seen in a registered tree: once bwrap dies, the
      // sandbox's init is no longer below it, so each is followed by its own identity.
      const seen = new Map<number, string>();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const pending = await registeredRoots();
        // Nothing registered runs and nothing was seen: no process table to read (the common case
        // of a run whose commands all ended; reading /proc costs tens of ms on a busy host).
        if (pending.length === 0 && seen.size === 0) break;
        const table = await allProcesses();
        const isSame = (pid: number, start: string) => {
          const stat = table.get(pid);
          return stat !== undefined && stat.start === start && stat.state !== 'Z' && stat.state !== 'X';
        };
        const children = new Map<number, number[]>();
        for (const [pid, stat] of table) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
        for (const [pid, start] of seen) if (isSame(pid, start)) pending.push(pid);
        const expanded = new Set<number>();
        while (pending.length > 0) {
          const pid = pending.pop() as number;
          const stat = table.get(pid);
          if (!stat || expanded.has(pid)) continue;
          expanded.add(pid);
          if (!seen.has(pid)) seen.set(pid, stat.start);
          pending.push(...(children.get(pid) ?? []));
        }
        const alive = [...seen].filter(([pid, start]) => isSame(pid, start)).map(([pid]) => pid);
        if (alive.length === 0) break;
        if (Date.now() > deadline) {
          throw new Error(`${alive.length} process(es) of the agent run could not be stopped`);
        }
        for (const pid of alive) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
