/** Reading workspace files as text for Read and Edit: size cap and binary detection. */
import type { ConfinedPath } from './confine.js';
import { openConfinedForRead } from './confined-open.js';
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
 * Reads the regular workspace file `target` (checked by `resolveToolPath`) as UTF-8, opened by
 * `openConfinedForRead` (so what is read is a file inside the workspace, outside `.git`, visible
 * under `isVisible`, whatever the path became after the check). Errors name `target.relative`.
 * Throws `ToolError` for a refused or missing path, a directory, a non-regular file, a file over
 * `MAX_TEXT_FILE_BYTES`, or a binary file.
 */
export async function readTextFile(
  rootReal: string,
  target: ConfinedPath,
  isVisible?: (relative: string) => boolean,
): Promise<string> {
  const shown = target.relative;
  const handle = await openConfinedForRead(rootReal, target.absolute, { shown, isVisible });
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
