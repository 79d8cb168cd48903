/**
 * Learnings without a store (CONTRACT §20): one JSON file per repository under
 * `<workspace.base_dir>/.learnings/`. A change is read-modify-write under a lock directory (atomic
 * `mkdir`, so it holds across processes; the holder keeps it fresh, and it is taken over when older
 * than `STALE_LOCK_MS` or its process is gone, so a killed process cannot leave it held), and the file is replaced by `rename` of a fully written and synced
 * temporary file, so a crash never leaves a half-written file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { withFileLock } from '../workspace/file-lock.js';
import {
  completeLearning,
  newestFirst,
  parseLearning,
  type AddLearningResult,
  type Learning,
  type LearningsScope,
  type LearningsStore,
} from './types.js';

/** A lock directory older than this (ms) belongs to a process that died: it is taken over. */
export const STALE_LOCK_MS = 30_000;
/** How long a change waits for the lock before it fails (ms). */
const LOCK_WAIT_MS = 15_000;

/** `<baseDir>/.learnings`: the folder of the file store. */
export function learningsDir(baseDir: string): string {
  return path.join(baseDir, '.learnings');
}

/** The file of `scope`: its platform and repository name, URI-encoded into one safe file name. */
export function learningsFile(baseDir: string, scope: LearningsScope): string {
  return path.join(learningsDir(baseDir), `${encodeURIComponent(`${scope.platform}:${scope.repo}`)}.json`);
}

/**
 * The learnings in `file` ([] when it does not exist), and the entries this version does not
 * understand (kept as they are, so a later write loses nothing).
 * @throws Error when the file exists but is not a learnings file (damaged): a change must not
 * replace it with one holding only the new learning.
 */
async function readAll(file: string): Promise<{ learnings: Learning[]; unknown: unknown[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { learnings: [], unknown: [] };
    throw error;
  }
  let entries: unknown;
  try {
    entries = (JSON.parse(text) as { learnings?: unknown } | null)?.learnings;
  } catch {
    entries = undefined;
  }
  if (!Array.isArray(entries)) {
    throw new Error(
      `the learnings file ${path.basename(file)} is damaged (not a JSON object with a "learnings" array); fix or remove it`,
    );
  }
  const out = { learnings: [] as Learning[], unknown: [] as unknown[] };
  for (const entry of entries) {
    const learning = parseLearning(JSON.stringify(entry));
    if (learning) out.learnings.push(learning);
    else out.unknown.push(entry);
  }
  return out;
}

async function writeAll(file: string, learnings: Learning[], unknown: unknown[]): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(
      `${JSON.stringify({ version: 1, learnings: [...learnings, ...unknown] }, null, 2)}\n`,
    );
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}

/**
 * Runs `fn` holding the cross-process lock of `file` (a `<file>.lock` directory, `withFileLock`:
 * a killed holder's lock is taken over, one waiter at a time).
 * @throws Error "learnings file is locked" after waiting `LOCK_WAIT_MS` for a live holder.
 */
async function withLearningsLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(LOCK_WAIT_MS);
  try {
    return await withFileLock(`${file}.lock`, fn, {
      staleMs: STALE_LOCK_MS,
      heartbeatMs: 5_000,
      pollMs: 15,
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw new Error(`learnings file is locked: ${path.basename(file)}`, { cause: error });
    throw error;
  }
}

/** Options of `createFileLearningsStore`. */
export interface FileLearningsStoreOptions {
  /** `workspace.base_dir`. */
  baseDir: string;
  /** Learnings one repository may hold. */
  maxPerRepository: number;
}

/** A LearningsStore on files under `<baseDir>/.learnings/` (see the module comment). */
export function createFileLearningsStore(options: FileLearningsStoreOptions): LearningsStore {
  const fileOf = (scope: LearningsScope): string => learningsFile(options.baseDir, scope);
  const change = async <T>(
    scope: LearningsScope,
    fn: (all: Learning[]) => { next?: Learning[]; result: T },
  ) => {
    await mkdir(learningsDir(options.baseDir), { recursive: true, mode: 0o700 });
    const file = fileOf(scope);
    return withLearningsLock(file, async () => {
      const { learnings, unknown } = await readAll(file);
      const { next, result } = fn(learnings);
      if (next) await writeAll(file, next, unknown);
      return result;
    });
  };
  return {
    async list(scope) {
      return newestFirst((await readAll(fileOf(scope))).learnings);
    },
    add(scope, input) {
      const learning = completeLearning(input);
      return change<AddLearningResult>(scope, (all) => {
        const existing = all.find((l) => l.id === learning.id);
        if (existing) return { result: { kind: 'exists', learning: existing } };
        if (all.length >= options.maxPerRepository) {
          return { result: { kind: 'full', limit: options.maxPerRepository } };
        }
        return { next: [...all, learning], result: { kind: 'added', learning } };
      });
    },
    remove(scope, id) {
      return change(scope, (all) => {
        const next = all.filter((l) => l.id !== id);
        return next.length === all.length ? { result: false } : { next, result: true };
      });
    },
    async close() {},
  };
}
