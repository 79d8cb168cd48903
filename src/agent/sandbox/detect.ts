/**
 * Start-up detection of the tool sandbox (CONTRACT §16): is bubblewrap installed, and can it create
 * its namespaces here? Logs one clear line, and fails start-up under `agent.sandbox: required`.
 */
import { access, constants, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { findPidsCgroupParent } from './pids-cgroup.js';
import { runProcess } from './run-process.js';
import { runSandboxed } from './run-sandboxed.js';
import type { SandboxMode, SandboxStatus } from './types.js';

/** Options of `detectSandbox`. */
export interface DetectOptions {
  /** Where to look for `bwrap` (default: PATH of `env`, then `/usr/bin`). */
  bwrapPath?: string;
  env?: NodeJS.ProcessEnv;
}

async function findBwrap(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const dirs = [...(env.PATH ?? '').split(':').filter((dir) => dir.startsWith('/')), '/usr/bin', '/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bwrap');
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * Finds out whether bubblewrap works, without logging. `off` is returned as is (nothing probed).
 * The probe runs `echo` through the real sandbox (the same arguments every command gets).
 */
export async function probeSandbox(mode: SandboxMode, options: DetectOptions = {}): Promise<SandboxStatus> {
  if (mode === 'off') return { kind: 'off' };
  const env = options.env ?? process.env;
  const bwrapPath = options.bwrapPath ?? (await findBwrap(env));
  if (!bwrapPath) {
    return {
      kind: 'unavailable',
      reason: 'bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)',
    };
  }
  const versionRun = await runProcess(bwrapPath, ['--version'], {
    cwd: '/',
    env: {},
    timeoutMs: 10_000,
  }).catch((error: unknown) => ({ output: String(error), exitCode: 1 }));
  if (versionRun.exitCode !== 0) {
    return { kind: 'unavailable', reason: `${bwrapPath} cannot be run: ${firstLine(versionRun.output)}` };
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'reviewbot-sandbox-probe-'));
  try {
    const workspace = path.join(scratch, 'ws');
    const home = path.join(scratch, 'home');
    await mkdir(workspace);
    await mkdir(home);
    const probe = await runSandboxed('echo reviewbot-sandbox-ok', {
      bwrapPath,
      workspace,
      home,
      networkHosts: [],
      timeoutMs: 10_000,
      hostEnv: {},
    });
    if (probe.exitCode !== 0 || !probe.output.includes('reviewbot-sandbox-ok')) {
      return {
        kind: 'unavailable',
        reason: `bubblewrap cannot create its namespaces here (${firstLine(probe.output) || `exit ${probe.exitCode}`}); user namespaces may be disabled (kernel.unprivileged_userns_clone, a container's seccomp or AppArmor profile)`,
      };
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  // RLIMIT_NPROC (`ulimit -p` inside) counts per user namespace and bounds a non-root server's
  // commands; the kernel exempts a real root user, so only then a pids cgroup is worth making (one
  // per run, joined once by the run's launcher: a migration costs several ms on cgroup v1).
  const pidsCgroup = process.getuid?.() === 0 ? await findPidsCgroupParent() : undefined;
  return {
    kind: 'bwrap',
    bwrapPath,
    version: firstLine(versionRun.output).replace(/^bubblewrap\s*/i, ''),
    ...(pidsCgroup ? { pidsCgroup } : {}),
  };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

/**
 * Detects the sandbox for `agent.sandbox` = `mode` and logs the outcome once:
 * - bwrap works → info `tool sandbox: bubblewrap <version>`;
 * - `off` → warn that tool commands run unsandboxed (unsafe);
 * - `auto` without a sandbox → warn with the reason; WORKER `Bash` will be refused.
 * @throws ConfigError (exit 2) under `required` when no working sandbox exists, naming the reason.
 */
export async function detectSandbox(
  mode: SandboxMode,
  logger: Logger,
  options: DetectOptions = {},
): Promise<SandboxStatus> {
  const status = await probeSandbox(mode, options);
  if (status.kind === 'bwrap') {
    logger.info(
      {
        sandbox: 'bubblewrap',
        version: status.version,
        bwrap: status.bwrapPath,
        pidsLimit: status.pidsCgroup !== undefined,
      },
      `tool sandbox: bubblewrap ${status.version} (user, PID, mount, IPC, UTS and network namespaces)`,
    );
  } else if (status.kind === 'off') {
    logger.warn(
      { sandbox: 'off' },
      'UNSAFE: agent.sandbox is off: WORKER Bash commands run unsandboxed as this user and can read its environment and files',
    );
  } else if (mode === 'required') {
    throw new ConfigError([
      `agent.sandbox (AGENT_SANDBOX): required, but no working sandbox: ${status.reason}`,
    ]);
  } else {
    logger.warn(
      { sandbox: 'unavailable', reason: status.reason },
      `no tool sandbox: ${status.reason}; WORKER Bash is refused (agent.sandbox: auto)`,
    );
  }
  return status;
}

let defaultProbe: Promise<SandboxStatus> | undefined;

/**
 * The `auto` status of this host, probed once per process: what runners use when they were built
 * without an explicit sandbox (tests, embedders), so nothing ever runs unsandboxed by default.
 */
export function defaultSandboxStatus(): Promise<SandboxStatus> {
  defaultProbe ??= probeSandbox('auto');
  return defaultProbe;
}
