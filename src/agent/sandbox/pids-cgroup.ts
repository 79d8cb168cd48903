/**
 * Best-effort process limit of sandboxed commands through a `pids` cgroup. `ulimit -p` inside the
 * sandbox bounds fork bombs for a non-root server user, but the kernel does not apply RLIMIT_NPROC
 * to processes whose real user is root; a cgroup with `pids.max` does, when this process may create
 * one (cgroup v1 `pids` hierarchy, or a v2 cgroup that delegates `pids`). One cgroup per agent run:
 * the API runner's commands start from the run's launcher inside it (`launcher.ts`); Claude Code's
 * commands (and a call without a launcher) join it first (`joinCgroupArgv`, several ms on v1).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const PARENT_NAME = 'reviewbot-sandbox';

async function usable(dir: string): Promise<string | undefined> {
  try {
    const parent = path.join(dir, PARENT_NAME);
    await mkdir(parent, { recursive: true });
    const probe = path.join(parent, `probe-${randomUUID()}`);
    await mkdir(probe);
    try {
      await writeFile(path.join(probe, 'pids.max'), '8');
    } finally {
      await rmdir(probe).catch(() => undefined);
    }
    return parent;
  } catch {
    return undefined;
  }
}

/** The directory under which per-command pids cgroups can be made, or `undefined` when none can. */
export async function findPidsCgroupParent(): Promise<string | undefined> {
  const v1 = await usable('/sys/fs/cgroup/pids');
  if (v1) return v1;
  try {
    const own = (await readFile('/proc/self/cgroup', 'utf8'))
      .split('\n')
      .find((line) => line.startsWith('0::'));
    if (!own) return undefined;
    for (const mount of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      const dir = path.join(mount, own.slice(3));
      const control = await readFile(path.join(dir, 'cgroup.subtree_control'), 'utf8').catch(() => '');
      if (control.split(/\s+/).includes('pids')) {
        const parent = await usable(dir);
        if (parent) return parent;
      }
    }
  } catch {
    // no cgroup v2 either
  }
  return undefined;
}

/** A cgroup for one run or command, limited to `maxPids` tasks; `remove` deletes it once empty. */
export async function createPidsCgroup(
  parent: string,
  maxPids: number,
): Promise<{ dir: string; remove(): Promise<void> } | undefined> {
  const dir = path.join(parent, randomUUID());
  try {
    await mkdir(dir);
    await writeFile(path.join(dir, 'pids.max'), String(maxPids));
  } catch {
    await rmdir(dir).catch(() => undefined);
    return undefined;
  }
  return {
    dir,
    async remove() {
      // The namespace's processes die with its init; give the kernel a moment to reap them.
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          await rmdir(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
  };
}

/**
 * The argv that joins cgroup `dir` and then execs `argv` (so every process the command starts is
 * counted from its first instruction). When joining fails the command still runs.
 */
export function joinCgroupArgv(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'echo $$ > "$1/cgroup.procs" 2>/dev/null; shift; exec "$@"', 'sh', dir, ...argv];
}
