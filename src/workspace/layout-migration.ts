/**
 * One-time removal of workspaces of the older layout (CONTRACT §11: "removes workspaces of the
 * older layout once"). The seed's layout was `<base>/<owner>/<repo>/pr-<N>` without a platform
 * level; the current one is `<base>/<platform>/<owner>/<repo>/pr-<N>`. Both look alike under a
 * first-level directory such as `github` (an owner of that name in the old layout), so the base
 * directory records the layout in a marker file (`LAYOUT_MARKER`): while it is missing, no
 * workspace of the current layout has been made yet (every maker runs `migrateWorkspaceLayout`
 * first), and every workspace found is of the older layout.
 */
import { lstat, readFile, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PLATFORM_NAMES } from '../platforms/types.js';
import { tryWithFileLock, withFileLock } from './file-lock.js';
import { processWorkspaceLock } from './lock.js';
import { LAYOUT_MARKER, LAYOUT_VERSION, PR_DIR, PR_LOCK_NAME, workspaceLockDir } from './workspace-path.js';

/** What one migration did (absolute paths). */
export interface LayoutMigrationReport {
  /** True when the marker already recorded the current layout: nothing was looked at. */
  alreadyCurrent: boolean;
  /** Old-layout workspaces and `.deps` directories removed. */
  removed: string[];
  /** Old-layout directories left in place, with the reason (in use, or removal failed). */
  kept: Array<{ dir: string; reason: string }>;
}

/** Deepest directory looked at: a GitLab project path has at most 22 segments. */
const MAX_DEPTH = 24;

/**
 * The lock directory serializing migrations between processes and pods sharing the base directory
 * (CONTRACT §19): without it, a process still scanning could remove a workspace another process
 * made right after its own migration wrote the marker.
 */
export const LAYOUT_LOCK = '.reviewbot-layout.lock';

/** Runs under way, per resolved base directory (a job and the cleaner may ask at once). */
const inFlight = new Map<string, Promise<LayoutMigrationReport>>();

/**
 * Removes the workspaces of the older layout under `baseDir` once, then writes the marker
 * `<base>/.reviewbot-layout` (`2`). Without the marker it removes every directory that looks like
 * an old-layout workspace — a `pr-<N>` directory holding a real `.git` directory, or a `.deps`
 * directory, at least two levels below the base — except one in use (the process-wide workspace
 * lock of it, of a directory inside it or of an ancestor is held or awaited: that is a workspace of
 * the current layout at the same path, which stays). It never removes a dot-directory at the base
 * level (`.learnings`, `.reviewbot-agent`, the marker), a first-level directory named after a
 * platform, or anything reached through a symlink. A missing base directory is left alone (no
 * marker). Processes and pods sharing the base directory migrate one at a time (the file lock
 * `<base>/.reviewbot-layout.lock`, which a killed holder cannot keep: see `withFileLock`); one that
 * waited finds the marker and does nothing. Never rejects: a failure is reported as kept, and
 * logged when `logger` is given.
 */
export function migrateWorkspaceLayout(baseDir: string, logger?: Logger): Promise<LayoutMigrationReport> {
  const root = path.resolve(baseDir);
  const running = inFlight.get(root);
  if (running) return running;
  const run = migrate(root, logger).finally(() => inFlight.delete(root));
  inFlight.set(root, run);
  return run;
}

async function readMarker(marker: string): Promise<boolean> {
  const recorded = await readFile(marker, 'utf8').catch(() => undefined);
  return recorded !== undefined && Number.parseInt(recorded, 10) >= LAYOUT_VERSION;
}

async function migrate(root: string, logger: Logger | undefined): Promise<LayoutMigrationReport> {
  const report: LayoutMigrationReport = { alreadyCurrent: false, removed: [], kept: [] };
  const marker = path.join(root, LAYOUT_MARKER);
  if (await readMarker(marker)) return { ...report, alreadyCurrent: true };
  try {
    if (!(await lstat(root)).isDirectory()) return report;
  } catch {
    return report; // no base directory: nothing to migrate yet
  }
  try {
    // Another process (or pod) may be migrating: wait for it, then look at the marker again.
    return await withFileLock(path.join(root, LAYOUT_LOCK), async () => {
      if (await readMarker(marker)) return { ...report, alreadyCurrent: true };
      await removeOldLayout(root, report);
      const temporary = `${marker}.${process.pid}.tmp`;
      await writeFile(temporary, `${LAYOUT_VERSION}\n`);
      await rename(temporary, marker);
      logRemoved(root, report, logger);
      return report;
    });
  } catch (error) {
    logger?.error({ err: describeError(error) }, 'removing workspaces of the older layout failed');
    return report;
  }
}

async function removeOldLayout(root: string, report: LayoutMigrationReport): Promise<void> {
  for (const dir of await findOldLayout(root)) {
    try {
      // A `pr-<N>` a job of another process or pod holds (its `pr-<N>.lock`) is in use too.
      const remove = () => rm(dir, { recursive: true, force: true, maxRetries: 3 });
      const done = await processWorkspaceLock.tryRun(dir, async () =>
        PR_DIR.test(path.basename(dir))
          ? (await tryWithFileLock(workspaceLockDir(dir), remove)).ran
          : (await remove(), true),
      );
      if (!done.ran || !done.value) {
        report.kept.push({ dir, reason: 'in use by a job' });
        continue;
      }
      report.removed.push(dir);
      await removeEmptyParents(root, path.dirname(dir));
    } catch (error) {
      report.kept.push({ dir, reason: describeError(error) });
    }
  }
}

function logRemoved(root: string, report: LayoutMigrationReport, logger: Logger | undefined): void {
  if (report.removed.length === 0 && report.kept.length === 0) return;
  const rel = (dir: string) => path.relative(root, dir);
  logger?.info(
    { removed: report.removed.map(rel), kept: report.kept.map((k) => `${rel(k.dir)}: ${k.reason}`) },
    'workspaces of the older layout removed',
  );
}

/**
 * Directories under `root` that look like old-layout workspaces: `pr-<N>` directories holding a
 * real `.git` directory and `.deps` directories, at least two levels down, not looking inside them,
 * `.git`, `.store`, base-level dot-directories or symlinks.
 */
async function findOldLayout(root: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > MAX_DEPTH) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      // A `.store` holds the object store and the spare checkout (CONTRACT §19), never a workspace.
      if (!entry.isDirectory() || entry.name === '.git' || entry.name === '.store') continue;
      if (PR_LOCK_NAME.test(entry.name)) continue; // a workspace's lock directory
      if (depth === 0 && entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === '.deps') {
        if (depth >= 2) found.push(full);
      } else if (depth >= 2 && PR_DIR.test(entry.name)) {
        if (await isRealDirectory(path.join(full, '.git'))) found.push(full);
      } else await walk(full, depth + 1);
    }
  }
  await walk(root, 0);
  return found.sort();
}

async function isRealDirectory(dir: string): Promise<boolean> {
  return lstat(dir).then(
    (stat) => stat.isDirectory(),
    () => false,
  );
}

/**
 * Removes `start` and each empty parent up to the base directory, never a first-level directory
 * named after a platform (it may hold the current layout), nor one in use.
 */
async function removeEmptyParents(root: string, start: string): Promise<void> {
  const platformDirs = new Set(PLATFORM_NAMES.map((name) => path.join(root, name)));
  for (let dir = start; dir.startsWith(root + path.sep) && !platformDirs.has(dir); dir = path.dirname(dir)) {
    const removed = await processWorkspaceLock
      .tryRun(dir, () => rmdir(dir))
      .then(
        (done) => done.ran,
        () => false,
      );
    if (!removed) return;
  }
}
