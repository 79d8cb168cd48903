import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveToolPath } from '../agent/tools/confine.js';
import { walkFiles } from '../agent/tools/walk.js';
import { visiblePathPredicate } from './visible-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('visiblePathPredicate', () => {
  it('sees the listed files, the directories above them and the root, nothing else', () => {
    const visible = visiblePathPredicate(['src/a/b.ts', 'README.md']);
    for (const p of ['.', 'src', 'src/a', 'src/a/b.ts', 'README.md']) expect(visible(p), p).toBe(true);
    for (const p of ['.env', 'src/a/c.ts', 'sr', 'src/a/b', 'node_modules'])
      expect(visible(p), p).toBe(false);
  });
});

describe('read-tool confinement with a visibility predicate', () => {
  function tree(): string {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'reviewbot-visible-')));
    dirs.push(root);
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src/a.ts'), 'a\n');
    writeFileSync(path.join(root, '.env'), 'SECRET=1\n');
    symlinkSync('../.env', path.join(root, 'src/env-link'));
    for (let i = 0; i < 50; i++) {
      mkdirSync(path.join(root, `node_modules/p${i}`), { recursive: true });
      writeFileSync(path.join(root, `node_modules/p${i}/index.js`), 'x\n');
    }
    return root;
  }

  it('the walk neither lists nor descends invisible paths, so node_modules cannot use up its limit', async () => {
    const root = tree();
    const visible = visiblePathPredicate(['src/a.ts', 'src/env-link']);
    expect(await walkFiles(root, '.', undefined, 10, visible)).toEqual({
      files: ['src/a.ts'],
      truncated: false,
    });
    expect((await walkFiles(root, '.', undefined, 10)).truncated).toBe(true);
  });

  it('resolveToolPath refuses an invisible path, and a visible link to an invisible file', async () => {
    const root = tree();
    const visible = visiblePathPredicate(['src/a.ts', 'src/env-link']);
    await expect(resolveToolPath(root, 'src/a.ts', visible)).resolves.toMatchObject({ relative: 'src/a.ts' });
    await expect(resolveToolPath(root, '.env', visible)).rejects.toThrow(/not a file of the repository/);
    await expect(resolveToolPath(root, 'src/env-link', visible)).rejects.toThrow(
      /not a file of the repository/,
    );
    await expect(resolveToolPath(root, '.env')).resolves.toMatchObject({ relative: '.env' });
  });
});
