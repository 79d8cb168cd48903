/**
 * Runs one tool command inside bubblewrap (CONTRACT §16), with the network proxy when
 * `agent.sandbox_network` lists hosts and a pids cgroup when the host allows one.
 */
import path from 'node:path';
import type { Logger } from '../../logger.js';
import {
  buildBwrapArgs,
  SANDBOX_MAX_PROCESSES,
  SANDBOX_PROXY_DIR,
  SANDBOX_PROXY_PORT,
} from './bwrap-args.js';
import { closingFds, inheritableFds } from './close-fds.js';
import { nodeInstallation, readSystemEntries, sandboxEnv, stageEtc } from './host-layout.js';
import {
  FORWARDER_SOURCE,
  PROXY_SOCKET_NAME,
  startNetworkProxy,
  type NetworkProxy,
} from './network-proxy.js';
import type { RunLauncher } from './launcher.js';
import { createPidsCgroup, joinCgroupArgv } from './pids-cgroup.js';
import { runProcess, type ShellOutcome } from './run-process.js';
import { borrowedStoreObjects } from '../../workspace/alternates.js';
import { borrowedSharedIndexDir } from '../../workspace/shared-index.js';

let leaked: Promise<number[]> | undefined;
/** Descriptors this process inherited without close-on-exec (they do not change after start-up). */
function leakedFds(): Promise<number[]> {
  leaked ??= inheritableFds();
  return leaked;
}

/**
 * Paths inside the workspace the command may read but not change: all of `.git` (CONTRACT §16: the
 * product commits and pushes itself, so nothing in it is the agent's to write — no link or named
 * pipe our own git would follow or wait on, no configuration, no `objects/info/alternates`). Bound
 * over the writable workspace, the directory is a mount point inside the sandbox, so it cannot be
 * renamed away and replaced either (`rename(2)` answers EBUSY).
 */
export const WORKSPACE_READ_ONLY = ['.git'];

/** Options of `runSandboxed`. */
export interface SandboxedRunOptions {
  bwrapPath: string;
  /** Real path of the workspace (writable, the working directory). */
  workspace: string;
  /** HOME of the command (writable, outside the workspace). */
  home: string;
  /** Hosts reachable through the proxy; `[]` = no network at all. */
  networkHosts: readonly string[];
  /** Parent of pids cgroups (from detection), if any. */
  pidsCgroup?: string;
  /**
   * The run's launcher: with `pidsCgroup`, the command is spawned by it inside the run's cgroup
   * (no per-command migration). Without one, the command joins a cgroup of its own first.
   */
  launcher?: RunLauncher;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The host environment the sandbox's (scrubbed) environment is taken from. */
  hostEnv?: NodeJS.ProcessEnv;
  /** Logs blocked network attempts. */
  logger?: Logger;
}

/** What `sandboxedArgv` needs besides the command. */
export interface SandboxArgvInput {
  bwrapPath: string;
  workspace: string;
  home: string;
  /** The running proxy, when network hosts are allowed. */
  proxy?: NetworkProxy;
  /** A pids cgroup the command joins first. */
  cgroupDir?: string;
  /** Close every inherited descriptor above 2 first (default: when this process has any). */
  closeFds?: boolean;
  hostEnv?: NodeJS.ProcessEnv;
}

/**
 * `/bin/sh -c` of the command with the process limit lowered first, in the same shell (`ulimit -p`
 * in dash, `-u` in bash; ignored where neither works). A command that does not parse runs nothing.
 */
function limitedShell(command: string): string[] {
  const limit = `ulimit -p ${SANDBOX_MAX_PROCESSES} 2>/dev/null || ulimit -u ${SANDBOX_MAX_PROCESSES} 2>/dev/null`;
  return ['/bin/sh', '-c', `${limit}\n${command}`];
}

/**
 * The complete argv (program first) that runs `command` with `/bin/sh -c` in the sandbox: joining
 * the cgroup, bwrap, the in-sandbox proxy forwarder when a proxy runs, the process limit.
 */
export async function sandboxedArgv(command: string, input: SandboxArgvInput): Promise<string[]> {
  const node = await nodeInstallation();
  let argv = limitedShell(command);
  const extraEnv: Record<string, string> = {};
  if (input.proxy) {
    const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) extraEnv[name] = url;
    const socket = path.posix.join(SANDBOX_PROXY_DIR, PROXY_SOCKET_NAME);
    argv = [
      path.join(node.binDir, 'node'),
      '-e',
      FORWARDER_SOURCE,
      '--',
      socket,
      String(SANDBOX_PROXY_PORT),
      ...argv,
    ];
  }
  const args = buildBwrapArgs(
    {
      workspace: input.workspace,
      home: input.home,
      systemEntries: await readSystemEntries(),
      etcDir: await stageEtc(),
      readOnly: node.tree === undefined ? [] : [node.tree],
      // The objects and the shared index of the repository's store the workspace borrows (§19), so
      // git works inside.
      borrowedReadOnly: [
        await borrowedStoreObjects(input.workspace),
        await borrowedSharedIndexDir(input.workspace),
      ].filter((d): d is string => d !== undefined),
      workspaceReadOnly: WORKSPACE_READ_ONLY,
      env: sandboxEnv(input.hostEnv ?? process.env, input.home, node.binDir, extraEnv),
      ...(input.proxy ? { proxyDir: input.proxy.dir } : {}),
    },
    argv,
  );
  let full = [input.bwrapPath, ...args];
  if (input.closeFds ?? (await leakedFds()).length > 0)
    full = closingFds(full, path.join(node.binDir, 'node'));
  return input.cgroupDir ? joinCgroupArgv(input.cgroupDir, full) : full;
}

/**
 * Runs `command` with `/bin/sh -c` inside the sandbox. The bwrap process gets an empty environment
 * (it is the sandbox's PID 1, whose `/proc/1/environ` the command can read); the command gets the
 * scrubbed one. Resolves like `runProcess`.
 */
export async function runSandboxed(command: string, options: SandboxedRunOptions): Promise<ShellOutcome> {
  let proxy: NetworkProxy | undefined;
  let cgroup: Awaited<ReturnType<typeof createPidsCgroup>>;
  try {
    if (options.networkHosts.length > 0)
      proxy = await startNetworkProxy(options.networkHosts, options.logger);
    const viaLauncher = options.pidsCgroup !== undefined && options.launcher !== undefined;
    if (options.pidsCgroup && !viaLauncher)
      cgroup = await createPidsCgroup(options.pidsCgroup, SANDBOX_MAX_PROCESSES + 8);
    const [file, ...rest] = await sandboxedArgv(command, {
      bwrapPath: options.bwrapPath,
      workspace: options.workspace,
      home: options.home,
      ...(proxy ? { proxy } : {}),
      ...(cgroup ? { cgroupDir: cgroup.dir } : {}),
      ...(options.hostEnv ? { hostEnv: options.hostEnv } : {}),
    });
    const runOptions = {
      cwd: options.workspace,
      env: {},
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    if (viaLauncher && options.launcher && options.pidsCgroup)
      return await options.launcher.run(options.pidsCgroup, file as string, rest, runOptions);
    return await runProcess(file as string, rest, runOptions);
  } finally {
    await proxy?.close();
    // The kernel reaps the namespace's processes shortly after its init dies: remove the cgroup
    // in the background instead of making every command wait for that.
    void cgroup?.remove();
  }
}
