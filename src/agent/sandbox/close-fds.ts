/**
 * No inherited descriptors in the sandbox (CONTRACT §16). bubblewrap passes every open descriptor
 * without close-on-exec to the command, and Node closes nothing it did not open itself: a descriptor
 * the server inherited from its own parent (a pipe of a supervisor, a log file) would reach the
 * sandbox. The command therefore starts through a closer that closes every descriptor above 2.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** `O_CLOEXEC` in `/proc/<pid>/fdinfo` flags (octal). */
const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above 2 of this process that a child would inherit (no close-on-exec), read from
 * `/proc/self/fdinfo`; `[]` where that cannot be read.
 */
export async function inheritableFds(): Promise<number[]> {
  const out: number[] = [];
  const entries = await readdir('/proc/self/fdinfo').catch(() => [] as string[]);
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = await readFile(`/proc/self/fdinfo/${entry}`, 'utf8').catch(() => '');
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out;
}

/** The bash line that closes every descriptor above 2 of its own process, then execs its arguments. */
const BASH_CLOSER =
  'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; exec "$@"';

/** The same with Node (where there is no bash): closes 3..1023 and spawns the rest, passing the status. */
const NODE_CLOSER = `
const fs = require('node:fs');
for (let fd = 3; fd < 1024; fd++) { try { fs.closeSync(fd); } catch {} }
const r = require('node:child_process').spawnSync(process.argv[1], process.argv.slice(2), { stdio: 'inherit' });
process.exit(r.status ?? 1);
`;

/** `argv` preceded by a closer of inherited descriptors (bash when present, else `node`). */
export function closingFds(argv: readonly string[], nodePath: string): string[] {
  if (existsSync('/bin/bash')) return ['/bin/bash', '-c', BASH_CLOSER, 'bash', ...argv];
  return [nodePath, '-e', NODE_CLOSER, '--', ...argv];
}
