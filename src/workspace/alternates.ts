/**
 * Object borrowing of a `pr-<N>` workspace (CONTRACT §19): its `.git/objects/info/alternates` may
 * name exactly one directory, the objects of its own repository's store
 * (`<repo dir>/.store/git/objects`), so no workspace reads another repository's objects — neither
 * in our own git runs (checked before every update and push) nor in the tool sandbox (which binds
 * that one directory read-only).
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { storeObjectsDirOf } from './workspace-path.js';

/**
 * Why the object borrowing of workspace `dir` is not allowed, or undefined: its
 * `.git/objects` and `.git/objects/info` must be real directories (not links) and
 * `.git/objects/info/alternates` absent (unless `required`) or a regular file holding exactly
 * `<storeObjectsDirOf(dir)>\n`.
 */
export async function alternatesProblem(dir: string, required = false): Promise<string | undefined> {
  // Real directories all the way: an agent may swap `.git/objects` for a link to another tree's.
  for (const sub of ['objects', path.join('objects', 'info')]) {
    const stat = await lstat(path.join(dir, '.git', sub)).catch(() => undefined);
    if (stat !== undefined && !stat.isDirectory()) return `.git/${sub} is not a directory`;
  }
  const file = path.join(dir, '.git', 'objects', 'info', 'alternates');
  let text: string;
  try {
    if (!(await lstat(file)).isFile()) return 'objects/info/alternates is not a file';
    text = await readFile(file, 'utf8');
  } catch {
    return required ? 'does not borrow from the repository store' : undefined;
  }
  const expected = storeObjectsDirOf(dir);
  if (expected === undefined || text !== `${expected}\n`) return 'borrows objects from another place';
  return undefined;
}

/**
 * The store objects directory workspace `dir` borrows from (absolute), when it borrows from its
 * own repository's store and that directory exists as a real directory; otherwise undefined.
 */
export async function borrowedStoreObjects(dir: string): Promise<string | undefined> {
  const expected = storeObjectsDirOf(dir);
  if (expected === undefined || (await alternatesProblem(dir, true)) !== undefined) return undefined;
  const stat = await lstat(expected).catch(() => undefined);
  return stat?.isDirectory() ? expected : undefined;
}
