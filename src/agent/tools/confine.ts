/**
 * Workspace confinement for agent tools (CONTRACT §8): every path a tool touches is relative to the
 * workspace, never leaves it (`..`, absolute paths, symlinks out of it) and never enters `.git`.
 * The lexical checks are pure; `resolveToolPath` adds the symlink check against the file system.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './tool-error.js';

/** Result of the lexical check of a tool path. */
export type PathCheck = { ok: true; relative: string } | { ok: false; reason: string };

/**
 * Checks a path given by the model, without touching the file system. Accepts workspace-relative
 * POSIX paths (`src/a.ts`, `./src`, `a/../b`, `.` or empty = the workspace root). Refuses absolute
 * paths, a NUL byte, `..` that climbs out of the workspace, and any `.git` segment
 * (case-insensitive, so `.GIT` is refused on case-insensitive file systems too).
 * Returns the normalized relative path (`.` for the root) or the reason for refusal.
 */
export function checkToolPath(input: string): PathCheck {
  if (input.includes('\0')) return { ok: false, reason: 'path contains a NUL byte' };
  const slashed = input.replaceAll('\\', '/');
  if (path.posix.isAbsolute(slashed) || /^[a-zA-Z]:\//.test(slashed)) {
    return {
      ok: false,
      reason: `absolute paths are not allowed (${input}); use a path relative to the workspace root`,
    };
  }
  const normalized = path.posix.normalize(slashed === '' ? '.' : slashed).replace(/\/+$/, '') || '.';
  if (normalized === '..' || normalized.startsWith('../')) {
    return { ok: false, reason: `path leaves the workspace (${input})` };
  }
  if (hasGitSegment(normalized)) {
    return { ok: false, reason: `access to .git is not allowed (${input})` };
  }
  return { ok: true, relative: normalized };
}

/** True when some segment of the POSIX path `relative` is `.git` (case-insensitive). */
export function hasGitSegment(relative: string): boolean {
  return relative.split('/').some((segment) => segment.toLowerCase() === '.git');
}

/**
 * True when the absolute path `candidate` is `root` itself or lies below it. Both must already be
 * real paths (symlinks resolved). Pure.
 */
export function isInsideRoot(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** A path a tool may use: its absolute form and its workspace-relative form (POSIX, `.` = root). */
export interface ConfinedPath {
  absolute: string;
  relative: string;
}

/**
 * Resolves a model-given path inside the workspace whose real path is `rootReal`. The lexical
 * rules of `checkToolPath` apply first; then the real path of the target (or, when it does not
 * exist yet, of its nearest existing ancestor) must lie inside the workspace and outside `.git`,
 * so a symlink pointing out of the workspace (or into `.git`) is refused. With `isVisible`
 * (`ToolContext.isVisible`), the path and its real target must both be visible.
 * Throws `ToolError` (its message is returned to the model) when the path is refused.
 */
export async function resolveToolPath(
  rootReal: string,
  input: string,
  isVisible?: (relative: string) => boolean,
): Promise<ConfinedPath> {
  const check = checkToolPath(input);
  if (!check.ok) throw new ToolError(check.reason);
  const absolute = path.join(rootReal, check.relative);
  const real = await realpathOfNearestExisting(absolute);
  if (!isInsideRoot(rootReal, real)) {
    throw new ToolError(`path resolves outside the workspace through a symlink (${input})`);
  }
  const realRelative = path.relative(rootReal, real).split(path.sep).join('/') || '.';
  if (hasGitSegment(realRelative)) {
    throw new ToolError(`access to .git is not allowed (${input})`);
  }
  // The same words whether the file exists or not: an ignored file's existence is not revealed.
  if (isVisible && !(isVisible(check.relative) && isVisible(realRelative))) {
    throw new ToolError(
      `${input} is not a file of the repository (files .gitignore excludes are not visible)`,
    );
  }
  return { absolute, relative: check.relative };
}

/** Real path of `absolute`, or of its nearest existing ancestor joined with the missing rest. */
async function realpathOfNearestExisting(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      // A dangling symlink: writing through it would create its (unchecked) target.
      if (await isSymlink(current)) throw new ToolError('path is a dangling symlink');
      const parent = path.dirname(current);
      if (parent === current) throw error;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** True when `absolute` exists as a symlink (without following it). */
async function isSymlink(absolute: string): Promise<boolean> {
  try {
    return (await lstat(absolute)).isSymbolicLink();
  } catch {
    return false;
  }
}
