/** Reads what `buildBwrapArgs` needs from the host: system directory shapes, Node's home, env. */
import { rmSync } from 'node:fs';
import { chmod, cp, lstat, mkdtemp, readlink, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scrubbedEnv } from '../../secrets.js';
import { ETC_ALLOWLIST, SYSTEM_ENTRIES, type HostEntry } from './bwrap-args.js';

let etcStage: Promise<string> | undefined;

/**
 * A private copy of the `/etc` entries the sandbox shows (`ETC_ALLOWLIST`; symlinks kept as they
 * are, a symlinked entry such as `localtime` copied as its target's content), made once per process
 * and removed at exit, so each command binds one directory as `/etc` instead of each file.
 */
export function stageEtc(): Promise<string> {
  etcStage ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'reviewbot-sandbox-etc-'));
    await chmod(dir, 0o755);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    for (const name of ETC_ALLOWLIST) {
      const from = path.join('/etc', name);
      const top = await lstat(from).catch(() => undefined);
      if (!top) continue;
      await cp(from, path.join(dir, name), {
        recursive: true,
        dereference: top.isSymbolicLink(),
        verbatimSymlinks: true,
        errorOnExist: false,
      }).catch(() => undefined);
    }
    return dir;
  })();
  return etcStage;
}

let systemEntries: Promise<Record<string, HostEntry>> | undefined;
let installation: Promise<{ binDir: string; tree?: string }> | undefined;

/**
 * How `/bin`, `/lib`, … look on this host (symlinks into `/usr` on merged-/usr systems); read once
 * per process.
 */
export function readSystemEntries(): Promise<Record<string, HostEntry>> {
  systemEntries ??= readSystemEntriesNow();
  return systemEntries;
}

async function readSystemEntriesNow(): Promise<Record<string, HostEntry>> {
  const out: Record<string, HostEntry> = {};
  for (const entry of SYSTEM_ENTRIES) {
    try {
      const stat = await lstat(entry);
      if (stat.isSymbolicLink()) out[entry] = { kind: 'symlink', target: await readlink(entry) };
      else out[entry] = stat.isDirectory() ? { kind: 'dir' } : { kind: 'missing' };
    } catch {
      out[entry] = { kind: 'missing' };
    }
  }
  return out;
}

/**
 * The Node.js installation running this process: its `bin` directory (put first on the sandbox's
 * PATH, so `node` works inside) and, when it lives outside `/usr`, the tree to bind read-only.
 * Found once per process.
 */
export function nodeInstallation(): Promise<{ binDir: string; tree?: string }> {
  installation ??= findNodeInstallation();
  return installation;
}

async function findNodeInstallation(): Promise<{ binDir: string; tree?: string }> {
  const exec = await realpath(process.execPath);
  const binDir = path.dirname(exec);
  if (exec.startsWith('/usr/')) return { binDir };
  return { binDir, tree: path.dirname(binDir) };
}

/** PATH inside the sandbox: Node's directory, then the standard system directories. */
export function sandboxPath(nodeBinDir: string): string {
  const dirs = [nodeBinDir, '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
  return [...new Set(dirs)].join(':');
}

/**
 * The environment of a sandboxed command: `scrubbedEnv` (no token, key or store URL) with HOME,
 * TMPDIR=/tmp and the sandbox's PATH; `extra` (e.g. proxy variables) added last.
 */
export function sandboxEnv(
  hostEnv: NodeJS.ProcessEnv,
  home: string,
  nodeBinDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(scrubbedEnv(hostEnv, home))) {
    if (value !== undefined) out[name] = value;
  }
  out.PATH = sandboxPath(nodeBinDir);
  out.TMPDIR = '/tmp';
  return { ...out, ...extra };
}
