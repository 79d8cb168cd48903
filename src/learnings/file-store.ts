/**
 * Learnings without a store (CONTRACT §20): one JSON file per repository under
 * `<workspace.base_dir>/.learnings/`. A change is read-modify-write under a lock directory (atomic
 * `mkdir`, so it holds across processes; taken over when older than `STALE_LOCK_MS`, so a killed
 * process cannot leave it held), and the file is replaced by `rename` of a fully written and synced
 * temporary file, so a crash never leaves a half-written file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
/** Pause between lock attempts (ms). */
const LOCK_RETRY_MS = 15;

/** `<baseDir>/.learnings`: the folder of the file store. */
export function learningsDir(baseDir: string): string {
  return path.join(baseDir, '.learnings');
}

/** The file of `scope`: its platform and repository name, URI-encoded into one safe file name. */
export function learningsFile(baseDir: string, scope: LearningsScope): string {
  return path.join(learningsDir(baseDir), `${encodeURIComponent(`${scope.platform}:${scope.repo}`)}.json`);
}

async function readAll(file: string): Promise<Learning[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let entries: unknown;
  try {
    entries = (JSON.parse(text) as { learnings?: unknown }).learnings;
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) return [];
  return entries.map((entry) => parseLearning(JSON.stringify(entry))).filter((l): l is Learning => !!l);
}

async function writeAll(file: string, learnings: Learning[]): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify({ version: 1, learnings }, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}

/** Runs `fn` holding the cross-process lock of `file` (a `<file>.lock` directory). */
async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`learnings file is locked: ${path.basename(file)}`, { cause: error });
      }
      await sleep(LOCK_RETRY_MS);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
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
    return withFileLock(file, async () => {
      const { next, result } = fn(await readAll(file));
      if (next) await writeAll(file, next);
      return result;
    });
  };
  return {
    async list(scope) {
      return newestFirst(await readAll(fileOf(scope)));
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
