/**
 * The workspace cleaner (seed "Cleaner lifecycle" and components table, CONTRACT §11): removes the
 * workspaces of the older layout once, deletes the workspaces of pull requests that are no longer
 * open, asking each workspace's platform for its state, keeps a workspace whenever a platform call
 * fails, then removes orphaned `.deps/` directories, looks after each repository's object store
 * (CONTRACT §19, `maintainStore`: removed when no workspace of the repository remains, refs of
 * removed workspaces dropped and a bounded `git gc`), and removes empty parent directories. It never deletes
 * a directory that holds a workspace in use: every removal runs under the process-wide tree lock
 * (`processWorkspaceLock.tryRun`) and is skipped when a job holds or awaits the lock of that
 * directory or of anything inside it. `runOnce()` at start-up; `start()` repeats it every
 * `intervalHours` until `stop()`; `intervalHours = 0` disables the loop.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { PlatformError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PLATFORM_NAMES, type Platform, type PlatformName } from '../platforms/types.js';
import { tryWithFileLock } from '../workspace/file-lock.js';
import { processWorkspaceLock } from '../workspace/lock.js';
import { migrateWorkspaceLayout } from '../workspace/layout-migration.js';
import { findStores, maintainStore } from '../workspace/store-maintenance.js';
import { removeWorkTree } from '../workspace/workspace-guard.js';
import {
  PR_DIR,
  PR_LOCK_NAME,
  repoFullNameOf,
  workspaceLockDir,
  workspacePath,
} from '../workspace/workspace-path.js';

/** A `pr-<N>` workspace found under `<base>/<platform>/`. */
export interface FoundWorkspace {
  dir: string;
  /** The first-level directory the workspace lies in. */
  platform: PlatformName;
  /**
   * `owner/repo` or the GitLab project path, from the directories between platform and `pr-<N>`
   * (decoded: `Fabrikam%20Fiber` is the Azure DevOps project `Fabrikam Fiber`; the names as they
   * are when a directory is no name `workspacePath` writes).
   */
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
  /** Workspaces of the older layout removed (only in the first round after an upgrade). */
  oldLayoutRemoved: string[];
  /** Repository directories whose object store was removed (no workspace of it remained). */
  storesRemoved: string[];
  /** Repository directories whose store was garbage-collected this round. */
  storesCollected: string[];
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
/** Directories inside a repository directory that are not searched for workspaces. */
const NOT_SEARCHED = new Set(['.deps', '.git', '.store']);
/** Deepest directory looked at below a platform directory (GitLab: at most 22 segments). */
const MAX_DEPTH = 24;

/**
 * Whether platform `name` can hold a repository at `repoFullName`: GitHub and Gitea names are
 * exactly `owner/repo`; GitLab project paths have two or more segments (groups nest).
 */
export function platformCanHold(name: PlatformName, repoFullName: string): boolean {
  const segments = repoFullName.split('/').length;
  return name === 'gitlab' ? segments >= 2 : segments === 2;
}

/**
 * Every `pr-<N>` directory under `<baseDir>/<platform>/` for each platform name, at least two
 * levels below the platform (`<owner>/<repo>/pr-<N>`), not looking inside workspaces, `.deps` or
 * `.git`, and not following symlinks. Nothing else at the base level is looked at (dot-directories
 * such as `.learnings`, workspaces of the older layout).
 */
export async function findWorkspaces(baseDir: string): Promise<FoundWorkspace[]> {
  const root = path.resolve(baseDir);
  const found: FoundWorkspace[] = [];
  async function walk(platform: PlatformName, dir: string, segments: string[]): Promise<void> {
    if (segments.length > MAX_DEPTH) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || NOT_SEARCHED.has(entry.name) || PR_LOCK_NAME.test(entry.name)) continue;
      const full = path.join(dir, entry.name);
      const match = PR_DIR.exec(entry.name);
      if (match && segments.length >= 2) {
        const repoFullName = repoFullNameOf(segments) ?? segments.join('/');
        found.push({ dir: full, platform, repoFullName, prNumber: Number(match[1]) });
      } else if (!match) {
        await walk(platform, full, [...segments, entry.name]);
      }
    }
  }
  for (const platform of PLATFORM_NAMES) await walk(platform, path.join(root, platform), []);
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

type Verdict = { keep: true; reason: string } | { keep: false; reason: string };

/** True when `workspace.dir` is the directory `workspacePath` gives its repository and number. */
function isWorkspacePath(root: string, workspace: FoundWorkspace): boolean {
  try {
    return (
      workspacePath(root, workspace.platform, workspace.repoFullName, workspace.prNumber) === workspace.dir
    );
  } catch {
    return false;
  }
}

/**
 * Asks the workspace's own platform: open → keep; not configured, or the path is no repository
 * of it (or not a directory `workspacePath` makes) → keep; the call fails other than with 404 →
 * keep; closed, merged or 404 → delete.
 */
async function judge(
  root: string,
  workspace: FoundWorkspace,
  platforms: Map<PlatformName, Platform>,
): Promise<Verdict> {
  const name = workspace.platform;
  const platform = platforms.get(name);
  if (!platform) return { keep: true, reason: `${name} is not configured` };
  if (!platformCanHold(name, workspace.repoFullName) || !isWorkspacePath(root, workspace)) {
    return { keep: true, reason: `not a repository path of ${name}` };
  }
  try {
    const pr = await platform.getPullRequest(workspace.repoFullName, workspace.prNumber);
    if (pr.state === 'open') return { keep: true, reason: `open on ${name}` };
    return { keep: false, reason: `${pr.state} on ${name}` };
  } catch (error) {
    if (error instanceof PlatformError && error.status === 404) {
      return { keep: false, reason: `not found on ${name}` };
    }
    return { keep: true, reason: `state unknown (${describeError(error)})` };
  }
}

async function hasPrWorkspace(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  // A held `pr-<N>.lock` without its tree yet: a job is about to make it.
  return entries.some(
    (e) => e.isDirectory() && (PR_DIR.test(e.name) || /^pr-[1-9][0-9]*\.lock$/.test(e.name)),
  );
}

/**
 * Creates the cleaner. A busy workspace (per `isBusy`, or its tree lock held or awaited) is
 * skipped; deletion itself happens under the workspace lock, so a job that starts at that moment
 * waits and then clones afresh.
 */
export function createWorkspaceCleaner(options: WorkspaceCleanerOptions): WorkspaceCleaner {
  const root = path.resolve(options.baseDir);
  const { logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  const inUse = (workspace: FoundWorkspace) =>
    options.isBusy?.(workspace.dir, workspace) === true || processWorkspaceLock.isBusy(workspace.dir);

  /**
   * Removes `dir` and then each empty parent up to (not including) its platform directory, each
   * only when no job holds or awaits a lock inside it.
   */
  async function removeEmptyUpwards(start: string, report: CleanReport): Promise<void> {
    for (let dir = start; path.dirname(dir).startsWith(`${root}${path.sep}`); dir = path.dirname(dir)) {
      const removed = await processWorkspaceLock
        .tryRun(dir, () => rmdir(dir))
        .then(
          (done) => done.ran,
          () => false, // not empty (or gone)
        );
      if (!removed) return; // stop climbing
      report.emptyRemoved.push(dir);
    }
  }

  async function runOnce(): Promise<CleanReport> {
    const report: CleanReport = {
      deleted: [],
      kept: [],
      depsRemoved: [],
      emptyRemoved: [],
      oldLayoutRemoved: [],
      storesRemoved: [],
      storesCollected: [],
    };
    const touched = new Set<string>();
    try {
      const migration = await migrateWorkspaceLayout(root, logger);
      report.oldLayoutRemoved.push(...migration.removed);
      for (const workspace of await findWorkspaces(root)) {
        if (inUse(workspace)) {
          report.kept.push({ dir: workspace.dir, reason: 'in use by a job' });
          continue;
        }
        const verdict = await judge(root, workspace, options.platforms);
        if (verdict.keep) {
          report.kept.push({ dir: workspace.dir, reason: verdict.reason });
          continue;
        }
        // A job may have started while the platform answered: `tryRun` skips it then, and
        // `tryWithFileLock` skips a tree a job of another process or pod holds.
        const done = inUse(workspace)
          ? { ran: false as const }
          : await processWorkspaceLock.tryRun(workspace.dir, () =>
              tryWithFileLock(workspaceLockDir(workspace.dir), () => removeWorkTree(workspace.dir)),
            );
        if (!done.ran || !done.value.ran) {
          report.kept.push({ dir: workspace.dir, reason: 'in use by a job' });
          continue;
        }
        report.deleted.push(workspace.dir);
        touched.add(path.dirname(workspace.dir));
        logger.info({ dir: workspace.dir, reason: verdict.reason }, 'workspace deleted');
      }
      for (const deps of await findDepsDirs(root)) {
        const repoDir = path.dirname(deps);
        // Under the repository directory's lock: no job of the repository is running or waiting.
        const done = await processWorkspaceLock.tryRun(repoDir, async () => {
          if (await hasPrWorkspace(repoDir)) return false;
          await rm(deps, { recursive: true, force: true, maxRetries: 3 });
          return true;
        });
        if (!done.ran || !done.value) continue;
        report.depsRemoved.push(deps);
        touched.add(repoDir);
      }
      for (const repoDir of await findStores(root, PLATFORM_NAMES)) {
        try {
          const upkeep = await maintainStore(repoDir);
          if (upkeep.action === 'removed') {
            report.storesRemoved.push(repoDir);
            touched.add(repoDir);
          } else if (upkeep.action === 'kept' && upkeep.gc) report.storesCollected.push(repoDir);
        } catch (error) {
          logger.warn({ dir: repoDir, err: describeError(error) }, 'object store upkeep failed');
        }
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

/** Every `.deps` directory directly inside a repository directory under `<root>/<platform>/`. */
async function findDepsDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > MAX_DEPTH) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === '.deps') {
        if (depth >= 2) out.push(full);
      } else if (!NOT_SEARCHED.has(entry.name) && !PR_DIR.test(entry.name) && !PR_LOCK_NAME.test(entry.name))
        await walk(full, depth + 1);
    }
  }
  for (const platform of PLATFORM_NAMES) await walk(path.join(root, platform), 0);
  return out;
}
