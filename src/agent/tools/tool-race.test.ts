/**
 * The file tools against a workspace that changes under them (CONTRACT §8): a process swaps a
 * directory of the workspace for a symlink to a directory outside it, over and over, while Read,
 * Write and Grep are called; none of them ever reads or writes outside. And within one run's tool
 * set, no file tool runs while a Bash call does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import { callTool } from './call-tool.js';
import type { ToolContext } from './context.js';
import { createGrepTool } from './grep.js';
import { buildTools, WORKER_TOOLS } from './index.js';
import { createReadTool } from './read.js';
import { createWriteTool } from './write.js';

const OUTSIDE_SECRET = 'OUTSIDE-SECRET-7f3a91';
/** How long each race runs, ms. */
const RACE_MS = 3_000;

/**
 * Makes `<root>/d` change until killed. `dir`: a real directory (holding `secret.txt`) swapped for
 * a symlink to `outside` by renames. `link`: always a symlink, retargeted between the directory
 * `d-real` of the workspace and `outside` (each replacement atomic, so `d` never goes missing).
 */
const SWAPPER = `
const fs = require('node:fs');
const [root, outside, mode] = process.argv.slice(1);
const d = root + '/d', dir = root + '/d-dir', link = root + '/d-link', tmp = root + '/d-tmp';
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(dir + '/secret.txt', 'inside\\n');
fs.mkdirSync(root + '/d-real', { recursive: true });
fs.writeFileSync(root + '/d-real/secret.txt', 'inside\\n');
if (mode === 'link') fs.symlinkSync('d-real', d);
fs.symlinkSync(outside, link);
for (;;) {
  try {
    if (mode === 'link') {
      fs.symlinkSync(outside, tmp); fs.renameSync(tmp, d);
      fs.symlinkSync('d-real', tmp); fs.renameSync(tmp, d);
    } else {
      fs.renameSync(dir, d); fs.renameSync(d, dir); fs.renameSync(link, d); fs.renameSync(d, link);
    }
  } catch {}
}
`;

let base: string;
let root: string;
let outside: string;
let ctx: ToolContext;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tool-race-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  const home = path.join(base, 'home');
  mkdirSync(home);
  ctx = { rootReal: root, homeDir: home, masker: new SecretMasker([]), onSubmit: () => {} };
});

afterEach(async () => {
  if (swapper && swapper.exitCode === null) {
    const exited = new Promise((resolve) => swapper?.once('exit', resolve));
    swapper.kill('SIGKILL');
    await exited;
  }
  swapper = undefined;
  rmSync(base, { recursive: true, force: true });
});

/** Starts the swapper and waits until it has set up (`d-link` is made last, before the loop). */
async function startSwapping(mode: 'dir' | 'link'): Promise<void> {
  swapper = spawn(process.execPath, ['-e', SWAPPER, root, outside, mode], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!existsSync(path.join(root, 'd-link'))) {
    if (Date.now() > deadline) throw new Error('the swapper did not start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Calls `call` back to back for `RACE_MS`; returns how many calls were made. */
async function race(call: () => Promise<void>): Promise<number> {
  const deadline = Date.now() + RACE_MS;
  let calls = 0;
  while (Date.now() < deadline) {
    await call();
    calls++;
  }
  return calls;
}

describe('file tools while a directory is swapped for a symlink out of the workspace', () => {
  it('Read never returns the outside file', async () => {
    const read = { Read: createReadTool(ctx) };
    await startSwapping('dir');
    let leaks = 0;
    let insideReads = 0;
    const calls = await race(async () => {
      const result = await callTool(read, 'Read', { file_path: 'd/secret.txt' });
      if (result.output.includes(OUTSIDE_SECRET)) leaks++;
      if (!result.isError && result.output.includes('inside')) insideReads++;
    });
    expect(calls).toBeGreaterThan(50);
    expect(insideReads).toBeGreaterThan(0); // the race really ran
    expect(leaks).toBe(0);
  });

  it('Write never creates a file outside', async () => {
    const write = { Write: createWriteTool(ctx) };
    await startSwapping('link');
    let written = 0;
    await race(async () => {
      const result = await callTool(write, 'Write', { file_path: 'd/planted.txt', content: 'x' });
      if (!result.isError) written++;
    });
    expect(written).toBeGreaterThan(0);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  });

  it('Grep never searches the outside file', async () => {
    const grep = { Grep: createGrepTool(ctx) };
    await startSwapping('link');
    let leaks = 0;
    let insideHits = 0;
    await race(async () => {
      const result = await callTool(grep, 'Grep', { pattern: 'SECRET|inside', path: 'd' });
      if (result.output.includes(OUTSIDE_SECRET)) leaks++;
      if (result.output.includes('d/secret.txt:1:inside')) insideHits++;
    });
    expect(insideHits).toBeGreaterThan(0);
    expect(leaks).toBe(0);
  });
});

describe("one run's tool set", () => {
  it('runs no file tool while a Bash call is running', async () => {
    const tools = buildTools(WORKER_TOOLS, {
      ...ctx,
      sandbox: { status: { kind: 'off' }, networkHosts: [] },
    });
    const bash = callTool(tools, 'Bash', { command: 'sleep 1; echo late > late.txt' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Issued while Bash runs: it waits for Bash, and then sees what Bash wrote.
    const read = await callTool(tools, 'Read', { file_path: 'late.txt' });
    expect((await bash).isError).toBe(false);
    expect(read).toEqual({ isError: false, output: '     1\tlate' });
  });
});
