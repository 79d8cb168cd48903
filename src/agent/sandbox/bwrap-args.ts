/**
 * Builds the bubblewrap command line of one sandboxed tool command (CONTRACT §16): new user, PID,
 * mount, IPC, UTS, network and cgroup namespaces; a fresh `/proc`; read-only system directories;
 * the workspace, a private `/tmp` and HOME as the only writable trees; no capabilities; a cleared
 * environment. Pure: the host layout is passed in.
 */
import path from 'node:path';

/** Directory under which the network proxy's Unix socket appears inside the sandbox. */
export const SANDBOX_PROXY_DIR = '/run/reviewbot-proxy';
/** Loopback port the in-sandbox forwarder listens on (HTTP(S)_PROXY points at it). */
export const SANDBOX_PROXY_PORT = 3128;
/** Most processes the sandboxed command may have at once (`ulimit -p`; see also the pids cgroup). */
export const SANDBOX_MAX_PROCESSES = 256;

/** Files and directories of `/etc` that tools need (name lookup, TLS roots, dynamic linker). */
export const ETC_ALLOWLIST = [
  'passwd',
  'group',
  'hosts',
  'host.conf',
  'nsswitch.conf',
  'resolv.conf',
  'gai.conf',
  'localtime',
  'timezone',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl/certs',
  'ca-certificates',
  'ca-certificates.conf',
  'os-release',
  'debian_version',
  'protocols',
  'services',
  'mime.types',
];

/** How each top-level system path looks on the host: a real directory, a symlink, or missing. */
export type HostEntry = { kind: 'dir' } | { kind: 'symlink'; target: string } | { kind: 'missing' };

/** Input of `buildBwrapArgs`. */
export interface BwrapLayout {
  /** Real path of the workspace: bound read-write, and the working directory. */
  workspace: string;
  /** HOME of the command (outside the workspace, made for the run): bound read-write. */
  home: string;
  /** How `/bin`, `/sbin`, `/lib`, `/lib32`, `/lib64`, `/libx32` look on the host. */
  systemEntries: Record<string, HostEntry>;
  /** Extra read-only trees (e.g. the Node.js installation when it lives outside `/usr`). */
  readOnly: readonly string[];
  /**
   * Read-only trees bound after the private `/tmp` (so one under the host's `/tmp` stays visible):
   * the objects of the repository store a workspace borrows (CONTRACT §19).
   */
  borrowedReadOnly?: readonly string[];
  /** Read-only files or directories inside the workspace (its `.git`). */
  workspaceReadOnly: readonly string[];
  /** The environment the command sees (already scrubbed). */
  env: Record<string, string>;
  /** Host directory holding the network proxy's socket, bound at `SANDBOX_PROXY_DIR`. */
  proxyDir?: string;
  /**
   * A directory holding copies of the `ETC_ALLOWLIST` entries (`stageEtc`), bound as `/etc` in one
   * mount; without it each entry is bound on its own (one mount each, slower).
   */
  etcDir?: string;
}

/** Top-level system paths mirrored into the sandbox besides `/usr`. */
export const SYSTEM_ENTRIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The bwrap arguments (without the `bwrap` program itself) that run `argv` inside the sandbox.
 * No secret is ever part of them (they are visible as the sandbox's `/proc/1/cmdline`).
 */
export function buildBwrapArgs(layout: BwrapLayout, argv: readonly string[]): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'reviewbot-sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const entry of SYSTEM_ENTRIES) {
    const host = layout.systemEntries[entry] ?? { kind: 'missing' };
    if (host.kind === 'symlink') args.push('--symlink', host.target, entry);
    else if (host.kind === 'dir') args.push('--ro-bind', entry, entry);
  }
  if (layout.etcDir !== undefined) args.push('--ro-bind', layout.etcDir, '/etc');
  else for (const name of ETC_ALLOWLIST) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  for (const tree of layout.readOnly) args.push('--ro-bind', tree, tree);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  args.push('--bind', layout.home, layout.home);
  for (const tree of layout.borrowedReadOnly ?? []) args.push('--ro-bind', tree, tree);
  args.push('--bind', layout.workspace, layout.workspace);
  for (const inside of layout.workspaceReadOnly) {
    const full = path.join(layout.workspace, inside);
    args.push('--ro-bind-try', full, full);
  }
  if (layout.proxyDir !== undefined) args.push('--ro-bind', layout.proxyDir, SANDBOX_PROXY_DIR);
  args.push('--remount-ro', '/', '--chdir', layout.workspace, '--clearenv');
  for (const [name, value] of Object.entries(layout.env)) args.push('--setenv', name, value);
  args.push('--', ...argv);
  return args;
}
