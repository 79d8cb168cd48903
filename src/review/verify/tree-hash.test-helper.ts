/** Test helper: a digest of every file, link and directory under a tree (`.git` included). */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** Hashes names, modes, sizes, link targets and contents of everything under `root`. */
export function hashTree(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = lstatSync(full);
      hash.update(`${path.relative(root, full)}\0${stat.mode}\0${stat.size}\0${stat.mtimeMs}\0`);
      if (stat.isSymbolicLink()) hash.update(readlinkSync(full));
      else if (stat.isDirectory()) walk(full);
      else if (stat.isFile()) hash.update(readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex');
}
