/**
 * The workspace cleaner (seed "Cleaner lifecycle" and components table): deletes the workspaces of
 * pull requests that are no longer open, asking the platforms for each one's state, keeps a
 * workspace whenever a platform call fails, then removes orphaned `.deps/` directories and empty
 * parent directories. `runOnce()` at start-up; `start()` repeats it every `intervalHours` until
 * `stop()`; `intervalHours = 0` disables the loop.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { PlatformError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import { withWorkspaceLock } from '../workspace/workspace.js';

/** A `pr-<N>` workspace found under the base directory. */
export interface FoundWorkspace {
  dir: string;
  /** `owner/repo` or the GitLab project path, from the directories above it. */
  repoFullName: string;
  prNumber: number;
}

/** Options of `createWorkspaceCleaner`. */
export interface WorkspaceCleanerOptions {
  /** `workspace.base_dir`. */
  baseDir: string;
  /** The enabled platforms; each is asked for the state of every workspace it could hold. */
  platforms: Map<PlatformName, Platform>;
  /** `workspace.cleanup_interval_hours`; 0 disables the periodic loop. */
  intervalHours: number;
  logger: Logger;
  /** True when a job is using or about to use the workspace: it is skipped this round. */
  isBusy?: (dir: string, workspace: FoundWorkspace) => boolean;
}

/** What one cleaning round did (absolute paths). */
export interface CleanReport {
  deleted: string[];
  kept: Array<{ dir: string; reason: string }>;
  /** `.deps` directories removed because no `pr-*` workspace was left beside them. */
  depsRemoved: string[];
  /** Empty directories removed. */
  emptyRemoved: string[];
}

/** The cleaner's controls. */
export interface WorkspaceCleaner {
  /** One cleaning round; never rejects (problems are logged and reported as kept). */
  runOnce(): Promise<CleanReport>;
  /** Starts the periodic loop (no-op when `intervalHours` is 0 or it already runs). */
  start(): void;
  /** Cancels the loop; a round under way finishes but schedules no next one. */
  stop(): void;
}

/** Longest delay `setTimeout` accepts, ms (2^31 - 1). */
const MAX_TIMER_MS = 2_147_483_647;
const PR_DIR = /^pr-([1-9][0-9]*)$/;

/**
 * Whether platform `name` can hold a repository at `repoFullName`: GitHub names are exactly
 * `owner/repo`; GitLab project paths have two or more segments (groups nest).
 */
export function platformCanHold(name: PlatformName, repoFullName: string): boolean {
  const segments = repoFullName.split('/').length;
  return name === 'github' ? segments === 2 : segments >= 2;
}

/**
 * Every `pr-<N>` directory at any depth under `baseDir` (at least two levels down), not looking
 * inside workspaces, `.deps` or other dot directories, and not following symlinks.
 */
export async function findWorkspaces(baseDir: string): Promise<FoundWorkspace[]> {
  const root = path.resolve(baseDir);
  const found: FoundWorkspace[] = [];
  async function walk(dir: string, segments: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      const match = PR_DIR.exec(entry.name);
      if (match && segments.length >= 2) {
        found.push({ dir: full, repoFullName: segments.join('/'), prNumber: Number(match[1]) });
      } else if (!match) {
        await walk(full, [...segments, entry.name]);
      }
    }
  }
  await walk(root, []);
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

type Verdict = { keep: true; reason: string } | { keep: false; reason: string };

/**
 * Asks every platform that can hold the workspace's repository: any says open → keep; any call
 * fails other than with 404 → keep; none answered → keep; else (closed, merged, or 404 everywhere)
 * → delete.
 */
async function judge(workspace: FoundWorkspace, platforms: Map<PlatformName, Platform>): Promise<Verdict> {
  const asked = [...platforms.values()].filter((p) => platformCanHold(p.name, workspace.repoFullName));
  if (asked.length === 0) return { keep: true, reason: 'no configured platform can hold this repository' };
  const answers = await Promise.allSettled(
    asked.map((p) => p.getPullRequest(workspace.repoFullName, workspace.prNumber)),
  );
  const states: string[] = [];
  for (const [i, answer] of answers.entries()) {
    const name = asked[i]?.name ?? 'platform';
    if (answer.status === 'fulfilled') {
      if (answer.value.state === 'open') return { keep: true, reason: `open on ${name}` };
      states.push(`${answer.value.state} on ${name}`);
    } else if (answer.reason instanceof PlatformError && answer.reason.status === 404) {
      states.push(`not found on ${name}`);
    } else {
      return { keep: true, reason: `state unknown (${describeError(answer.reason)})` };
    }
  }
  return { keep: false, reason: states.join(', ') };
}

async function hasPrWorkspace(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.some((e) => e.isDirectory() && PR_DIR.test(e.name));
}

/**
 * Creates the cleaner. A busy workspace (per `isBusy`) is skipped; deletion itself happens under
 * the workspace lock, so a job that starts at that moment waits and then clones afresh.
 */
export function createWorkspaceCleaner(options: WorkspaceCleanerOptions): WorkspaceCleaner {
  const root = path.resolve(options.baseDir);
  const { logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  /** Removes `dir` and then each empty parent up to (not including) the base directory. */
  async function removeEmptyUpwards(start: string, report: CleanReport): Promise<void> {
    for (let dir = start; dir.startsWith(`${root}${path.sep}`); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
        report.emptyRemoved.push(dir);
      } catch {
        return; // not empty (or gone): stop climbing
      }
    }
  }

  async function runOnce(): Promise<CleanReport> {
    const report: CleanReport = { deleted: [], kept: [], depsRemoved: [], emptyRemoved: [] };
    const touched = new Set<string>();
    try {
      for (const workspace of await findWorkspaces(root)) {
        if (options.isBusy?.(workspace.dir, workspace)) {
          report.kept.push({ dir: workspace.dir, reason: 'in use by a job' });
          continue;
        }
        const verdict = await judge(workspace, options.platforms);
        if (verdict.keep) {
          report.kept.push({ dir: workspace.dir, reason: verdict.reason });
          continue;
        }
        await withWorkspaceLock(workspace.dir, () =>
          rm(workspace.dir, { recursive: true, force: true, maxRetries: 3 }),
        );
        report.deleted.push(workspace.dir);
        touched.add(path.dirname(workspace.dir));
        logger.info({ dir: workspace.dir, reason: verdict.reason }, 'workspace deleted');
      }
      for (const deps of await findDepsDirs(root)) {
        const repoDir = path.dirname(deps);
        if (await hasPrWorkspace(repoDir)) continue;
        await rm(deps, { recursive: true, force: true, maxRetries: 3 });
        report.depsRemoved.push(deps);
        touched.add(repoDir);
      }
      for (const dir of touched) await removeEmptyUpwards(dir, report);
    } catch (error) {
      logger.error({ err: describeError(error) }, 'workspace cleanup failed');
    }
    const kept = report.kept.map((k) => `${path.relative(root, k.dir)}: ${k.reason}`);
    logger.info({ deleted: report.deleted.length, kept }, 'workspace cleanup finished');
    return report;
  }

  function schedule(): void {
    const ms = Math.min(MAX_TIMER_MS, Math.max(1, options.intervalHours * 3_600_000));
    timer = setTimeout(() => {
      timer = undefined;
      void runOnce().then(() => {
        if (running) schedule();
      });
    }, ms);
    timer.unref();
  }

  return {
    runOnce,
    start() {
      if (running) return;
      if (!(options.intervalHours > 0)) {
        logger.info('periodic workspace cleanup disabled (cleanup_interval_hours = 0)');
        return;
      }
      running = true;
      schedule();
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Every `.deps` directory directly inside a repository directory under `root`. */
async function findDepsDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === '.deps' && depth >= 2) out.push(full);
      else if (!entry.name.startsWith('.') && !PR_DIR.test(entry.name)) await walk(full, depth + 1);
    }
  }
  await walk(root, 0);
  return out;
}
