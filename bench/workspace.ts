/**
 * Workspace benchmark: a cold `prepareWorkspace` of a 20,000-file repository served over git smart
 * HTTP on loopback, against a warm update (store fetch + reset + clean) after one new commit on the
 * head branch; then (CONTRACT §19) ten pull requests of the repository, one after the other, made
 * by `prepareWorkspace` on the shared object store and, as the same-run baseline, by today's
 * per-pull-request shallow clones (`git clone --depth 1`, as `prepareWorkspace` did before the
 * store). Prints one JSON object on stdout:
 * `{"files":20000,"coldMs":…,"warmMs":…,"ratio":…,"target":0.10,"pass":…,"prs":{…}}` where `prs`
 * holds, for `store` and `baseline`: `firstMs`, `laterMedianMs` (pull requests 2–10),
 * `laterRatio` (target ≤ 0.2), `laterBytes` / `laterNewObjectBytes` / `bytesRatio` (bytes the git
 * server sent for pull requests 2–10 against the size of a pack of exactly the objects the store
 * lacked; target ≤ 1.1), `gitBytes` (store plus every workspace's own `.git`; checkouts excluded),
 * `diskRatio` against one clone's `.git` (target ≤ 1.2; the trees share one index, see
 * `src/workspace/shared-index.ts`, and each keeps only its own changes in `.git/index`), and the
 * same without any index data (`gitBytesWithoutIndex`, `diskRatioWithoutIndex`: each tree's
 * `.git/index` and the store's shared index left out, against one clone without its index); the
 * spare checkout's `.git` counts, its files do not. `storeFetch` times the store's fetch phase
 * alone (first vs median of 2–10); `gitProfileMs` is the median ms per git subcommand of pull
 * requests 2–10; `laterFromSpare` how many of them were made from the spare checkout;
 * `sharedUpdate` the median warm update of a tree sharing the index (ms, and against `coldMs`). Between
 * store-mode pull requests the benchmark waits (untimed) for the background spare build, as the
 * review that follows a ready workspace would. Progress goes to stderr. Exit code 0 whether or not
 * the targets are met.
 */
import { spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGitHttpHandler } from '../test/support/git-http-server.js';
import { observeGitRuns, runGit } from '../src/workspace/git.js';
import {
  prepareWorkspace,
  spareBuildsSettled,
  type PrepareWorkspaceOptions,
} from '../src/workspace/workspace.js';

const FILES = 20_000;
const FILES_PER_DIR = 100;
const COLD_RUNS = 3;
const WARM_RUNS = 5;
const TARGET = 0.1;
const BRANCH = 'main';
const TOKEN = 'ghs_benchmarktokenbenchmarktoken';
/** Pull requests of the §19 part, and the files each changes (in as many directories). */
const PRS = 10;
const PR_FILES = 20;
const PR_TARGETS = { laterRatio: 0.2, bytesRatio: 1.1, diskRatio: 1.2 };

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

/** The fast-import stream of one commit on top of `branch` changing one file. */
function* nextCommit(revision: number, branch = BRANCH): Generator<string> {
  yield `commit refs/heads/${branch}\ncommitter Bench <bench@example.com> ${1700000000 + revision} +0000\n`;
  yield `${data(`change ${revision}`)}from refs/heads/${branch}^0\n`;
  yield `M 100644 inline pkg-000/file-000.ts\n${data(fileContent(0, revision))}done\n`;
}

/** The fast-import stream of pull request `n`'s head: one commit on main changing PR_FILES files. */
function* prCommit(n: number): Generator<string> {
  yield `commit refs/heads/pr-${n}\ncommitter Bench <bench@example.com> ${1700001000 + n} +0000\n`;
  yield `${data(`pull request ${n}`)}from refs/heads/${BRANCH}^0\n`;
  for (let k = 0; k < PR_FILES; k += 1) {
    const index = k * FILES_PER_DIR * 7 + n;
    const dir = `pkg-${String(Math.floor(index / FILES_PER_DIR)).padStart(3, '0')}`;
    yield `M 100644 inline ${dir}/file-${String(index % FILES_PER_DIR).padStart(3, '0')}.ts\n${data(fileContent(index, 1000 + n))}`;
  }
  yield 'done\n';
}

/** Runs git and returns its stdout (fixture side: plain environment). */
function gitOut(cwd: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: plainEnv,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args[0]} exited ${code}`)),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Bytes of a pack of exactly the objects of `tip` not reachable from `exclude` (in `bare`). */
async function newObjectBytes(bare: string, tip: string, exclude: string[]): Promise<number> {
  const list = (await gitOut(bare, ['rev-list', '--objects', tip, '--not', ...exclude])).toString();
  const ids = list
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(' ')[0])
    .join('\n');
  return (await gitOut(bare, ['pack-objects', '--stdout', '-q'], `${ids}\n`)).length;
}

/** Apparent size in bytes of every file under `dir` (symlinks not followed); `skip` names excluded. */
async function treeBytes(dir: string, skip: (file: string) => boolean = () => false): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (skip(full)) continue;
    if (entry.isDirectory()) total += await treeBytes(full, skip);
    else total += (await lstat(full)).size;
  }
  return total;
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
      // The cold/warm part times one workspace alone; the §19 part below uses the spare tree.
      spareTree: false,
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

    // §19: ten pull requests, one after the other; today's per-PR clones first, then the store.
    for (let n = 1; n <= PRS; n += 1) await git(bare, ['fast-import', '--quiet', '--done'], prCommit(n));
    const url = options('').cloneUrl;
    const cloneOne = async (baseDir: string, n: number) => {
      const dir = path.join(baseDir, 'github', 'acme', 'big', `pr-${n}`);
      await mkdir(path.dirname(dir), { recursive: true });
      await runGit(
        [
          'clone',
          '--quiet',
          '--depth',
          '1',
          '--single-branch',
          '--no-tags',
          '--no-recurse-submodules',
          '--branch',
          `pr-${n}`,
          '--',
          url,
          path.basename(dir),
        ],
        {
          cwd: path.dirname(dir),
          credentials: { username: 'x-access-token', password: TOKEN },
          credentialUrl: url,
        },
      );
    };
    /** Store mode: ms from the start until the head is in the store (the fetch phase), per PR. */
    const storeFetchMs: number[] = [];
    /** Store mode: ms of each git subcommand (summed per PR), and whether the spare was used. */
    const gitMs: Array<Record<string, number>> = [];
    const fromSpare: boolean[] = [];
    const storeOne = async (baseDir: string, n: number) => {
      const started = performance.now();
      let fetched = 0;
      const spent: Record<string, number> = {};
      const stop = observeGitRuns((subcommand, ms) => (spent[subcommand] = (spent[subcommand] ?? 0) + ms));
      try {
        const result = await prepareWorkspace({
          ...options(baseDir),
          spareTree: true,
          prNumber: n,
          branch: `pr-${n}`,
          onProgress: (message) => {
            if (fetched === 0 && /^(cloning|updating)/.test(message)) fetched = performance.now() - started;
          },
        });
        fromSpare.push(result.fromSpare === true);
      } finally {
        stop();
      }
      storeFetchMs.push(fetched);
      gitMs.push(spent);
    };
    const heads = await Promise.all(
      Array.from({ length: PRS }, async (_, i) =>
        (await gitOut(bare, ['rev-parse', `pr-${i + 1}`])).toString().trim(),
      ),
    );
    const lacking: number[] = [];
    for (let n = 2; n <= PRS; n += 1)
      lacking.push(await newObjectBytes(bare, heads[n - 1]!, heads.slice(0, n - 1)));
    const runMode = async (mode: 'baseline' | 'store') => {
      const baseDir = path.join(root, `prs-${mode}`);
      const times: number[] = [];
      const bytes: number[] = [];
      for (let n = 1; n <= PRS; n += 1) {
        const mark = handler.requests.length;
        times.push(await timed(() => (mode === 'store' ? storeOne(baseDir, n) : cloneOne(baseDir, n))));
        bytes.push(handler.requests.slice(mark).reduce((sum, r) => sum + r.bytesSent, 0));
        // The review that follows a ready workspace lasts far longer than the background build of
        // the next spare tree; wait for it here (not timed) as a job would, by running its review.
        if (mode === 'store') await spareBuildsSettled();
        process.stderr.write(
          `${mode} pull request ${n}: ${times.at(-1)!.toFixed(0)} ms, ${bytes.at(-1)} bytes\n`,
        );
      }
      const repoDir = path.join(baseDir, 'github', 'acme', 'big');
      const spare = path.join(repoDir, '.store', 'spare');
      const gitData = async (withoutIndex: boolean) => {
        // Without the index data: each tree's `.git/index` and the store's shared index.
        const skip = (file: string) =>
          withoutIndex &&
          ((path.basename(file) === 'index' && path.basename(path.dirname(file)) === '.git') ||
            path.basename(path.dirname(file)) === 'shared-index');
        // The spare tree is a checkout (excluded) with its own `.git` (counted, like a workspace's).
        let total = await treeBytes(path.join(repoDir, '.store'), (file) => file === spare || skip(file));
        total += await treeBytes(path.join(spare, '.git'), skip);
        for (let n = 1; n <= PRS; n += 1)
          total += await treeBytes(path.join(repoDir, `pr-${n}`, '.git'), skip);
        return total;
      };
      const oneCloneDir = path.join(repoDir, 'pr-1', '.git');
      return {
        times,
        bytes,
        gitBytes: await gitData(false),
        gitBytesWithoutIndex: await gitData(true),
        oneClone: oneCloneDir,
      };
    };
    const baseline = await runMode('baseline');
    const oneClone = await treeBytes(baseline.oneClone);
    const oneCloneWithoutIndex = oneClone - (await lstat(path.join(baseline.oneClone, 'index'))).size;
    const store = await runMode('store');
    // Updates of a workspace that shares the repository's index (it takes the store's template
    // again and checks its files' times before `clean` + `reset`), one new commit each.
    const sharedUpdates: number[] = [];
    for (let run = 0; run < WARM_RUNS; run += 1) {
      await git(bare, ['fast-import', '--quiet', '--done'], nextCommit(100 + run, `pr-${PRS}`));
      let action = '';
      sharedUpdates.push(
        await timed(async () => {
          action = (
            await prepareWorkspace({
              ...options(path.join(root, 'prs-store')),
              spareTree: true,
              prNumber: PRS,
              branch: `pr-${PRS}`,
            })
          ).action;
        }),
      );
      if (action !== 'updated') throw new Error(`shared update ${run + 1} did not update (${action})`);
      process.stderr.write(`shared-index update ${run + 1}: ${sharedUpdates.at(-1)!.toFixed(0)} ms\n`);
    }
    await spareBuildsSettled();
    const summary = (m: typeof store) => {
      const later = median(m.times.slice(1));
      const laterBytes = m.bytes.slice(1).reduce((a, b) => a + b, 0);
      const newBytes = lacking.reduce((a, b) => a + b, 0);
      return {
        firstMs: Math.round(m.times[0]!),
        laterMedianMs: Math.round(later),
        laterRatio: Number((later / m.times[0]!).toFixed(3)),
        firstBytes: m.bytes[0],
        laterBytes,
        laterNewObjectBytes: newBytes,
        bytesRatio: Number((laterBytes / newBytes).toFixed(3)),
        gitBytes: m.gitBytes,
        diskRatio: Number((m.gitBytes / oneClone).toFixed(3)),
        gitBytesWithoutIndex: m.gitBytesWithoutIndex,
        diskRatioWithoutIndex: Number((m.gitBytesWithoutIndex / oneCloneWithoutIndex).toFixed(3)),
      };
    };
    const laterFetch = median(storeFetchMs.slice(1));
    const commands = [...new Set(gitMs.slice(1).flatMap((spent) => Object.keys(spent)))].sort();
    const profile = Object.fromEntries(
      commands.map((c) => [c, Math.round(median(gitMs.slice(1).map((spent) => spent[c] ?? 0)))]),
    );
    const prs = {
      count: PRS,
      // The store's fetch phase alone (lock, negotiation, download, index): pull requests 2–10
      // against the first; the rest of a ready workspace is writing its checkout.
      storeFetch: {
        firstMs: Math.round(storeFetchMs[0]!),
        laterMedianMs: Math.round(laterFetch),
        laterRatio: Number((laterFetch / storeFetchMs[0]!).toFixed(3)),
      },
      // Median ms per git subcommand for pull requests 2–10 (concurrent commands overlap), and
      // how many of them were made from the spare tree.
      gitProfileMs: profile,
      laterFromSpare: fromSpare.slice(1).filter(Boolean).length,
      // A warm update of a tree sharing the index, median ms and against the cold workspace.
      sharedUpdate: {
        medianMs: Math.round(median(sharedUpdates)),
        ratioToCold: Number((median(sharedUpdates) / coldMs).toFixed(3)),
      },
      filesPerPr: PR_FILES,
      oneCloneGitBytes: oneClone,
      oneCloneGitBytesWithoutIndex: oneCloneWithoutIndex,
      store: summary(store),
      baseline: summary(baseline),
      targets: PR_TARGETS,
    };
    const prsPass = {
      laterRatio: prs.store.laterRatio <= PR_TARGETS.laterRatio,
      bytesRatio: prs.store.bytesRatio <= PR_TARGETS.bytesRatio,
      diskRatio: prs.store.diskRatio <= PR_TARGETS.diskRatio,
      diskRatioWithoutIndex: prs.store.diskRatioWithoutIndex <= PR_TARGETS.diskRatio,
    };
    process.stdout.write(
      `${JSON.stringify({ files: FILES, coldMs, warmMs, ratio, target: TARGET, pass: ratio <= TARGET, prs, prsPass })}\n`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  }
}

await main();
