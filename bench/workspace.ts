/**
 * Workspace benchmark: a cold `prepareWorkspace` (shallow clone) of a 20,000-file repository served
 * over git smart HTTP on loopback, against a warm update (fetch + reset + clean) after one new
 * commit on the head branch. Prints one JSON object on stdout:
 * `{"files":20000,"coldMs":…,"warmMs":…,"ratio":…,"target":0.10,"pass":true}` (medians over a few
 * runs, ms); progress goes to stderr. Exit code 0 whether or not the target is met.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGitHttpHandler } from '../test/support/git-http-server.js';
import { prepareWorkspace, type PrepareWorkspaceOptions } from '../src/workspace/workspace.js';

const FILES = 20_000;
const FILES_PER_DIR = 100;
const COLD_RUNS = 3;
const WARM_RUNS = 5;
const TARGET = 0.1;
const BRANCH = 'main';
const TOKEN = 'ghs_benchmarktokenbenchmarktoken';

/** Plain git for building the fixture: no user/system config. */
const plainEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

/** Runs git with `input` on stdin (written with back-pressure); rejects on a non-zero exit. */
function git(cwd: string, args: string[], input?: Iterable<string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: plainEnv, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0]} exited ${code}: ${stderr}`)),
    );
    void (async () => {
      for (const chunk of input ?? []) {
        if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
      }
      child.stdin.end();
    })();
  });
}

/** `data` command of git fast-import for `text` (length in bytes). */
function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/** Roughly 1 KiB of source-like text, different for every file. */
function fileContent(index: number, revision = 0): string {
  const lines = [`// file ${index} revision ${revision}`];
  for (let line = 0; line < 24; line += 1) {
    lines.push(
      `export const value${line} = ${(index * 7919 + line * 104729 + revision) % 1_000_003}; // ${index}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The fast-import stream of one commit holding all FILES files. */
function* initialCommit(): Generator<string> {
  yield `commit refs/heads/${BRANCH}\ncommitter Bench <bench@example.com> 1700000000 +0000\n${data('initial')}`;
  for (let index = 0; index < FILES; index += 1) {
    const dir = `pkg-${String(Math.floor(index / FILES_PER_DIR)).padStart(3, '0')}`;
    yield `M 100644 inline ${dir}/file-${String(index % FILES_PER_DIR).padStart(3, '0')}.ts\n${data(fileContent(index))}`;
  }
  yield 'done\n';
}

/** The fast-import stream of one commit on top of the branch changing one file. */
function* nextCommit(revision: number): Generator<string> {
  yield `commit refs/heads/${BRANCH}\ncommitter Bench <bench@example.com> ${1700000000 + revision} +0000\n`;
  yield `${data(`change ${revision}`)}from refs/heads/${BRANCH}^0\n`;
  yield `M 100644 inline pkg-000/file-000.ts\n${data(fileContent(0, revision))}done\n`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'reviewbot-bench-ws-'));
  const server = createServer();
  try {
    const bare = path.join(root, 'remote', 'acme', 'big.git');
    await mkdir(bare, { recursive: true });
    await git(bare, ['init', '--quiet', '--bare', `--initial-branch=${BRANCH}`]);
    process.stderr.write(`generating ${FILES} files with git fast-import…\n`);
    await git(bare, ['fast-import', '--quiet', '--done'], initialCommit());

    const handler = createGitHttpHandler({ projectRoot: path.join(root, 'remote'), password: TOKEN });
    server.on('request', (req, res) => handler.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const options = (baseDir: string): PrepareWorkspaceOptions => ({
      baseDir,
      platform: 'github',
      repoFullName: 'acme/big',
      prNumber: 1,
      cloneUrl: `http://127.0.0.1:${port}/acme/big.git`,
      branch: BRANCH,
      credentials: { username: 'x-access-token', password: TOKEN },
    });

    const cold: number[] = [];
    for (let run = 0; run < COLD_RUNS; run += 1) {
      const baseDir = path.join(root, `cold-${run}`);
      const ms = await timed(() => prepareWorkspace(options(baseDir)));
      cold.push(ms);
      process.stderr.write(`cold run ${run + 1}: ${ms.toFixed(0)} ms\n`);
      if (run > 0) await rm(baseDir, { recursive: true, force: true });
    }

    const warm: number[] = [];
    for (let run = 0; run < WARM_RUNS; run += 1) {
      await git(bare, ['fast-import', '--quiet', '--done'], nextCommit(run + 1));
      let action = '';
      const ms = await timed(async () => {
        action = (await prepareWorkspace(options(path.join(root, 'cold-0')))).action;
      });
      if (action !== 'updated') throw new Error(`warm run ${run + 1} did not update (${action})`);
      warm.push(ms);
      process.stderr.write(`warm run ${run + 1}: ${ms.toFixed(0)} ms\n`);
    }

    const coldMs = Math.round(median(cold));
    const warmMs = Math.round(median(warm));
    const ratio = Number((median(warm) / median(cold)).toFixed(3));
    process.stdout.write(
      `${JSON.stringify({ files: FILES, coldMs, warmMs, ratio, target: TARGET, pass: ratio <= TARGET })}\n`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }
}

await main();
