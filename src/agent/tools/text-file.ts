/** Reading workspace files as text for Read and Edit: size cap and binary detection. */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ToolError } from './tool-error.js';

/** Largest file Read and Edit accept, bytes (10 MiB). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** How many leading bytes are inspected for a NUL byte to call a file binary (8 KiB, as git does). */
export const BINARY_SNIFF_BYTES = 8000;

/** True when `bytes` looks binary: it holds a NUL byte within its first `BINARY_SNIFF_BYTES`. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * Reads the regular file `absolute` as UTF-8. `shown` is the path to name in error messages.
 * Throws `ToolError` for a directory, a non-regular file, a file over `MAX_TEXT_FILE_BYTES`,
 * or a binary file.
 */
export async function readTextFile(absolute: string, shown: string): Promise<string> {
  const handle = await openExisting(absolute, shown);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory; use Glob to list files`);
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
    if (info.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError(`${shown} is ${info.size} bytes, over the ${MAX_TEXT_FILE_BYTES}-byte limit`);
    }
    const bytes = await handle.readFile();
    if (looksBinary(bytes)) throw new ToolError(`${shown} is a binary file; it cannot be read as text`);
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

async function openExisting(absolute: string, shown: string) {
  try {
    // O_NONBLOCK: opening a FIFO must not hang the run; the stat check then refuses it.
    return await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`${shown} does not exist`);
    if (code === 'EISDIR') throw new ToolError(`${shown} is a directory; use Glob to list files`);
    throw new ToolError(`cannot open ${shown} (${code ?? 'unknown error'})`);
  }
}
