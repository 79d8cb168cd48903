/** Runs the built `reviewbot` CLI as a child process (the way a user runs it) and captures its output. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the nearest directory above this file holding package.json (works from dist/ too). */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Absolute path of the built CLI entry point (`npm run build` first). */
export const CLI_PATH = path.join(projectRoot(), 'dist', 'src', 'cli', 'index.js');

/** What the CLI did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of `runCli`. */
export interface RunCliOptions {
  /** Kill the process after this many ms; default 60 s. */
  timeoutMs?: number;
  /** Working directory; default: the test process's. */
  cwd?: string;
  /**
   * Program and its leading arguments, run instead of `node dist/src/cli/index.js`; `args` follow.
   * E.g. `[process.execPath, 'dist/src/action/main.js']`, or `['sh', '-e', '-c', script]`.
   */
  command?: readonly [string, ...string[]];
}

/**
 * Runs `node dist/src/cli/index.js ...args` (or `options.command ...args`) with exactly `env` (plus
 * PATH and NO_COLOR=1, which `env` may override) and resolves when it exits. Kills it after the
 * timeout (`options`, or a number of ms for short; default 60 s).
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: number | RunCliOptions = {},
): Promise<CliResult> {
  const { timeoutMs = 60_000, cwd, command } = typeof options === 'number' ? { timeoutMs: options } : options;
  const [program, ...leading] = command ?? [process.execPath, CLI_PATH];
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...leading, ...args], {
      ...(cwd !== undefined ? { cwd } : {}),
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
