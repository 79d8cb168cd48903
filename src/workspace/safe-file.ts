/**
 * Reading and writing files inside a workspace's `.git`, which a WORKER agent can write: a planted
 * symbolic link or named pipe must never make us write somewhere else or wait forever.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, utimes, writeFile } from 'node:fs/promises';

/**
 * Writes `content` to `file` through a new temporary file beside it (random name, created
 * exclusively, so a planted symbolic link is never followed) and a rename (readers never see half;
 * a symbolic link at `file` itself is replaced, not followed), with modification time `mtime` when
 * given. Rejects when the write fails.
 */
export async function writeFileAtomically(
  file: string,
  content: string | Buffer,
  mtime?: Date,
): Promise<void> {
  const temporary = `${file}.reviewbot-${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { flag: 'wx' });
    if (mtime !== undefined) await utimes(temporary, mtime, mtime);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * The content of `file` when it is a regular file (not a symbolic link, named pipe or device) of
 * at most `maxBytes` bytes; otherwise undefined (also when it does not exist). Opened without
 * following links and without blocking, so a named pipe planted there cannot stall us.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
