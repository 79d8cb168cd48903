/**
 * A disposable copy of a pull request's working tree for one verification run (CONTRACT §22): an
 * overlay mount over the `pr-<N>` workspace that exists only inside the run's sandbox. Nothing is
 * copied: the workspace is the overlay's read-only lower layer; what the run's commands write lands
 * in an upper directory of our own outside the workspace, kept across the run's commands and removed
 * with it. The workspace, its `.git` (also read-only inside, as for every tool process, §16) and the
 * repository's store (§19) never change.
 *
 * How: the run's sandbox names a small generated launcher as its bubblewrap program. The launcher
 * enters a user and mount namespace of its own (`unshare`), mounts the overlay at the workspace's
 * own path there, and then runs the real bubblewrap, whose `--bind <workspace>` picks up the
 * overlay. Every path is the same inside as outside; the mount is never visible on the host. If the
 * overlay cannot be mounted, the command does not run (exit 125): it never falls back to the real
 * workspace. (bubblewrap ≥ 0.9's `--overlay-src` would do the same in one process; 0.8 lacks it.)
 *
 * Every launch registers itself with the tree (`openRunProcesses`, the upper layer's path as its
 * identity: the launcher's shell stays bubblewrap's parent with that path in its arguments), so
 * `stop` and `close` kill whatever still runs in the copy whichever runner started it, and refuse
 * new commands — a run that is slow to stop at its deadline leaves no process behind.
 */
import { access, chmod, mkdtemp, mkdir, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openRunProcesses, type RunProcesses } from '../../agent/sandbox/run-processes.js';
import type { ToolSandbox } from '../../agent/sandbox/types.js';

/** Exit status of a command whose disposable overlay could not be mounted. */
export const OVERLAY_FAILED_EXIT = 125;

/** Input of `openDisposableTree`. */
export interface DisposableTreeInput {
  /** The pull request's workspace (`pr-<N>`): the overlay's read-only lower layer. */
  workspace: string;
  /** The host's sandbox (`bwrap` kind); its network allowlist is dropped: a verification has none. */
  sandbox: Extract<ToolSandbox['status'], { kind: 'bwrap' }>;
  /** Where the run's upper layer is made; default the OS temporary directory. Never inside `workspace`. */
  parentDir?: string;
}

/** One run's disposable tree. */
export interface DisposableTree {
  /** Real path of the workspace: the run's `workspaceDir` (the overlay is mounted there, in the sandbox). */
  workspace: string;
  /** Directory holding what the run's commands wrote (the overlay's upper layer). */
  upperDir: string;
  /** The run's sandbox: the disposable overlay, no network. Pass as `AgentRunOptions.sandbox`. */
  sandbox: ToolSandbox;
  /**
   * Kills every command running in the copy (SIGKILL to its bubblewrap and everything below) and
   * waits until they are gone; commands started later do not run (exit 125). Idempotent.
   * @throws Error when a process is still alive after `STOP_TIMEOUT_MS` (see `openRunProcesses`).
   */
  stop(): Promise<void>;
  /**
   * `stop`, then removes the upper layer and the launcher; idempotent. Call after the run settled
   * (or was given up). The directory is removed even when `stop` throws, and the error rethrown.
   */
  close(): Promise<void>;
}

/** Characters that a path inside overlay mount options or a single-quoted word must not hold. */
const UNSAFE_PATH = /[,:'\\\n\r\0]/;

/**
 * The launcher script that mounts the overlay (lower `workspace`, `upperDir`, `workDir`) in private
 * namespaces and then runs `bwrapPath` with its arguments, as a child (the shell, whose arguments
 * hold `upperDir`, stays its parent: bubblewrap's `--die-with-parent` ends the sandbox with it).
 * `register` (optional) is the argv prefix that registers the launch first (`RunProcesses`), a
 * launch it refuses runs nothing. Pure. `unshare` is an absolute path: the launcher runs with an
 * empty environment.
 * @throws Error when a path holds a character the mount options cannot carry (`,` `:` `'` `\`), or
 * a word of `register` holds `'`.
 */
export function overlayLauncherScript(paths: {
  unshare: string;
  bwrapPath: string;
  workspace: string;
  upperDir: string;
  workDir: string;
  register?: readonly string[];
}): string {
  const { register = [], ...plain } = paths;
  for (const [name, value] of Object.entries(plain)) {
    if (UNSAFE_PATH.test(value) || !path.isAbsolute(value))
      throw new Error(`disposable tree: ${name} is not a plain absolute path`);
  }
  if (register.some((word) => word.includes("'")))
    throw new Error('disposable tree: the registration holds a single quote');
  const q = (value: string) => `'${value}'`;
  const inner = [
    'L=$1 U=$2 W=$3 B=$4',
    'shift 4',
    `mount -t overlay reviewbot-verify -o "userxattr,lowerdir=$L,upperdir=$U,workdir=$W" "$L" || {`,
    `  echo "reviewbot: the disposable copy of the working tree could not be made; nothing ran" >&2`,
    `  exit ${OVERLAY_FAILED_EXIT}`,
    '}',
    // Not `exec`: this shell (its arguments name the upper layer) is what the tree's registry kills.
    '"$B" "$@"',
    'status=$?',
    'exit $status',
  ].join('\n');
  const registration = register.map((word) => `${q(word)} `).join('');
  return [
    '#!/bin/sh',
    '# reviewbot: disposable overlay of one verification run (removed with the run)',
    `PATH=/usr/sbin:/usr/bin:/sbin:/bin exec ${registration}${q(paths.unshare)} --user --map-root-user --mount -- /bin/sh -c '${inner}' sh \\`,
    `  ${q(paths.workspace)} ${q(paths.upperDir)} ${q(paths.workDir)} ${q(paths.bwrapPath)} "$@"`,
    '',
  ].join('\n');
}

/** Absolute path of `unshare` (util-linux), looked up where distributions install it. */
export async function findUnshare(): Promise<string | undefined> {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const file = path.join(dir, 'unshare');
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * Makes a disposable tree over `workspace`: a private directory with the upper layer, the overlay's
 * work directory and the launcher (about a millisecond: nothing of the workspace is read).
 * @throws Error when `unshare` is missing or a path cannot be used (see `overlayLauncherScript`).
 */
export async function openDisposableTree(input: DisposableTreeInput): Promise<DisposableTree> {
  const unshare = await findUnshare();
  if (unshare === undefined) throw new Error('disposable tree: `unshare` (util-linux) is not installed');
  const workspace = await realpath(input.workspace);
  const parent = await realpath(input.parentDir ?? tmpdir());
  if (parent === workspace || parent.startsWith(workspace + path.sep))
    throw new Error('disposable tree: the upper layer cannot live inside the workspace');
  const dir = await mkdtemp(path.join(parent, 'reviewbot-verify-'));
  const upperDir = path.join(dir, 'upper');
  let processes: RunProcesses | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= processes?.stopAll() ?? Promise.resolve());
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        await stop();
      } finally {
        await removeTree(dir);
      }
    })());
  try {
    const workDir = path.join(dir, 'work');
    await mkdir(upperDir, { mode: 0o700 });
    await mkdir(workDir, { mode: 0o700 });
    // Every launch names the upper layer in its shell's arguments: that is its identity.
    processes = await openRunProcesses(upperDir);
    const launcher = path.join(dir, 'bwrap');
    const script = overlayLauncherScript({
      unshare,
      bwrapPath: input.sandbox.bwrapPath,
      workspace,
      upperDir,
      workDir,
      register: processes.registered([]),
    });
    await writeFile(launcher, script, { mode: 0o700 });
    return {
      workspace,
      upperDir,
      sandbox: { status: { ...input.sandbox, bwrapPath: launcher }, networkHosts: [] },
      stop,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Removes `dir` completely. The overlay leaves `work/work` with mode 000 (and a command may have
 * made unreadable directories in the upper layer): permissions are opened before removal.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    return;
  } catch {
    // a directory without permissions: open them and try again
  }
  await openPermissions(dir);
  await rm(dir, { recursive: true, force: true });
}

async function openPermissions(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.isSymbolicLink()) await openPermissions(path.join(dir, entry.name));
  }
}
