/**
 * Opening workspace files so that what is read or written is the file that was checked (CONTRACT
 * §8). A path checked with `resolveToolPath` can change before it is used (a directory swapped for
 * a symlink out of the workspace), so every open here first pins the object with `O_PATH` (no
 * side effect, not even for a device or a named pipe), checks where the pinned object really is
 * (`/proc/self/fd/<n>`) and only then opens it through that descriptor. New files are created
 * relative to a pinned, checked parent directory, never through a symlink. Linux only; elsewhere
 * the checks fall back to `realpath` just before the open (racy; there, no tool process runs
 * beside a file tool: see `ToolCallLock`).
 */
import { constants } from 'node:fs';
import { mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { hasGitSegment, isInsideRoot } from './confine.js';
import { ToolError } from './tool-error.js';

/** `O_PATH` (Linux; not exported by Node): a descriptor that names an object without opening it. */
const O_PATH = 0o10000000;
const PINNING = process.platform === 'linux';
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** Where a pinned descriptor's object really is, as a path this process can open. */
function procPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/** Options of the checks: `shown` names the path in refusals; `isVisible` as in `ToolContext`. */
interface CheckOptions {
  shown: string;
  isVisible?: ((relative: string) => boolean) | undefined;
}

/**
 * Refuses the object `real` (a real path) unless it is inside `rootReal`, outside `.git` and
 * visible. Returns its workspace-relative POSIX path.
 */
function checkReal(rootReal: string, real: string, options: CheckOptions): string {
  if (!isInsideRoot(rootReal, real)) {
    throw new ToolError(`path resolves outside the workspace through a symlink (${options.shown})`);
  }
  const relative = path.relative(rootReal, real).split(path.sep).join('/') || '.';
  if (hasGitSegment(relative)) throw new ToolError(`access to .git is not allowed (${options.shown})`);
  if (options.isVisible && !options.isVisible(relative)) {
    throw new ToolError(
      `${options.shown} is not a file of the repository (files .gitignore excludes are not visible)`,
    );
  }
  return relative;
}

/** Checks where the object `handle` pins really is (see `checkReal`). */
async function checkPinned(rootReal: string, handle: FileHandle, options: CheckOptions): Promise<string> {
  return checkReal(rootReal, await readlink(procPath(handle)), options);
}

/** Turns an open error into the refusal the model sees. */
function openFailure(error: unknown, shown: string): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof ToolError) return error;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ToolError(`${shown} does not exist`);
  if (code === 'EISDIR') return new ToolError(`${shown} is a directory; use Glob to list files`);
  if (code === 'ELOOP') return new ToolError(`${shown} is a symlink loop`);
  if (code === 'ENXIO') return new ToolError(`${shown} is not a regular file`);
  return new ToolError(`cannot open ${shown} (${code ?? 'unknown error'})`);
}

/**
 * Pins `absolute` (symlinks followed) and checks it; the caller closes the handle.
 * @throws ToolError when it does not exist or is refused.
 */
async function pinChecked(rootReal: string, absolute: string, options: CheckOptions): Promise<FileHandle> {
  const pinned = await open(absolute, O_PATH).catch((error: unknown) => {
    throw openFailure(error, options.shown);
  });
  try {
    await checkPinned(rootReal, pinned, options);
    return pinned;
  } catch (error) {
    await pinned.close();
    throw error;
  }
}

/**
 * Opens the existing workspace file `absolute` (under `rootReal`) for reading, non-blocking (a
 * named pipe does not hang), after checking where it really is: inside the workspace, outside
 * `.git`, visible. Symlinks inside the workspace are followed.
 * @throws ToolError when it does not exist or is refused.
 */
export async function openConfinedForRead(
  rootReal: string,
  absolute: string,
  options: CheckOptions,
): Promise<FileHandle> {
  if (!PINNING) {
    const real = await realpath(absolute).catch((error: unknown) => {
      throw openFailure(error, options.shown);
    });
    checkReal(rootReal, real, options);
    return open(absolute, O_RDONLY | O_NONBLOCK).catch((error: unknown) => {
      throw openFailure(error, options.shown);
    });
  }
  const pinned = await pinChecked(rootReal, absolute, options);
  try {
    return await open(procPath(pinned), O_RDONLY | O_NONBLOCK).catch((error: unknown) => {
      throw openFailure(error, options.shown);
    });
  } finally {
    await pinned.close();
  }
}

/**
 * Pins the workspace directory `relative` (POSIX, `.` = root), creating missing directories one
 * by one, each inside the last checked one; every directory on the way is checked (a symlink
 * component is followed only to a directory inside the workspace, outside `.git`).
 * @throws ToolError when a component is not a directory or is refused.
 */
async function pinDirectory(rootReal: string, relative: string, shown: string): Promise<FileHandle> {
  let current = await open(rootReal, O_PATH | O_DIRECTORY);
  try {
    for (const segment of relative === '.' ? [] : relative.split('/')) {
      const at = path.join(procPath(current), segment);
      const next = await open(at, O_PATH | O_DIRECTORY).catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // mkdir never follows a symlink at its last component (a dangling link: EEXIST).
        await mkdir(at);
        return open(at, O_PATH | O_DIRECTORY | O_NOFOLLOW);
      });
      try {
        await checkPinned(rootReal, next, { shown });
      } catch (error) {
        await next.close();
        throw error;
      }
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      throw new ToolError(`cannot create ${shown}: a parent is not a directory`);
    }
    throw openFailure(error, shown);
  }
}

/** The file `handle` opened for writing; `created` when it did not exist before. */
export interface OpenedForWrite {
  handle: FileHandle;
  created: boolean;
}

/**
 * Opens the workspace file `relative` (POSIX, checked by `resolveToolPath`, not the root) for
 * writing, truncated, creating it and its missing parent directories. The file is created in its
 * pinned, checked parent directory (`O_NOFOLLOW`: never through a symlink); an existing symlink
 * is followed only to a regular file inside the workspace, outside `.git`.
 * @throws ToolError for a directory, a file that is not regular, or a refused path.
 */
export async function openConfinedForWrite(rootReal: string, relative: string): Promise<OpenedForWrite> {
  const shown = relative;
  if (!PINNING) {
    const absolute = path.join(rootReal, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    checkReal(rootReal, await realpath(path.dirname(absolute)), { shown });
    const existed = await open(absolute, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK).then(
      (handle) => ({ handle, created: true }),
      () => undefined,
    );
    if (existed) return existed;
    return { handle: await open(absolute, O_WRONLY | O_TRUNC | O_NONBLOCK), created: false };
  }
  const dir = await pinDirectory(rootReal, path.posix.dirname(relative), shown);
  try {
    const at = path.join(procPath(dir), path.posix.basename(relative));
    const created = await open(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666).catch(
      (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
        throw openFailure(error, shown);
      },
    );
    if (created) return { handle: created, created: true };
    const handle = await open(at, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK).catch(
      async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw openFailure(error, shown);
        // A symlink: followed only after checking what it leads to.
        const pinned = await pinChecked(rootReal, at, { shown });
        try {
          return await open(procPath(pinned), O_WRONLY | O_TRUNC | O_NONBLOCK);
        } catch (reopenError) {
          throw openFailure(reopenError, shown);
        } finally {
          await pinned.close();
        }
      },
    );
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw new ToolError(`${shown} is not a regular file`);
    }
    return { handle, created: false };
  } finally {
    await dir.close();
  }
}

/**
 * Pins the workspace directory `absolute` for listing, after checking it is inside the workspace
 * and outside `.git`; returns a path through which it can be read (valid until `close`), or
 * `undefined` when it is gone, not a directory or refused.
 */
export async function openConfinedDirectory(
  rootReal: string,
  absolute: string,
): Promise<{ path: string; close(): Promise<void> } | undefined> {
  if (!PINNING) return { path: absolute, close: () => Promise.resolve() };
  const pinned = await open(absolute, O_PATH | O_DIRECTORY).catch(() => undefined);
  if (!pinned) return undefined;
  try {
    await checkPinned(rootReal, pinned, { shown: absolute });
    return { path: procPath(pinned), close: () => pinned.close() };
  } catch {
    await pinned.close();
    return undefined;
  }
}
