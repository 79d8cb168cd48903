/**
 * The house's arrows run one way: the diff model sits below the platforms and the review pipeline,
 * the platforms below the review, and the agent runners take nothing from the review. A production
 * module that imports upward fails here with the offending import named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Production (non-test) TypeScript files under `dir`, relative to `src/`. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(SRC, dir), { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (/\.ts$/.test(entry.name) && !/\.test(-helper)?\.ts$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** The top-level `src/` folders a file imports from (relative imports only). */
function importedFolders(file: string): { spec: string; folder: string }[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found: { spec: string; folder: string }[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\()\s*'(\.[^']+)'/g)) {
    const target = relative(SRC, resolve(SRC, dirname(file), match[1]!));
    found.push({ spec: match[1]!, folder: target.split('/')[0]! });
  }
  return found;
}

/** Folders each layer must never import from (production code only). */
const FORBIDDEN: Record<string, string[]> = {
  diff: ['platforms', 'review', 'agent', 'jobs', 'workspace', 'server', 'cli', 'cluster', 'config'],
  platforms: ['review', 'agent', 'jobs', 'server', 'cli', 'cluster'],
  agent: ['review', 'jobs', 'server', 'cli', 'cluster'],
};

describe('module layering', () => {
  for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
    it(`src/${layer}/ imports nothing from ${forbidden.join(', ')}`, () => {
      const violations = sources(layer).flatMap((file) =>
        importedFolders(file)
          .filter((imp) => forbidden.includes(imp.folder))
          .map((imp) => `${file} imports ${imp.spec}`),
      );
      expect(violations).toEqual([]);
    });
  }
});

/** Folders of `src/platforms/` that every platform shares (not a platform). */
const SHARED_PLATFORM_FOLDERS = new Set(['http']);

describe('platform modules', () => {
  it('import nothing from another platform (shared code lives in src/diff/, src/platforms/*.ts or src/platforms/http/)', () => {
    const violations = sources('platforms').flatMap((file) => {
      const own = file.split('/')[1]!;
      if (!file.includes('/', 'platforms/'.length)) return [];
      const text = readFileSync(join(SRC, file), 'utf8');
      return [...text.matchAll(/(?:from\s+|import\()\s*'(\.[^']+)'/g)]
        .map((m) => ({ spec: m[1]!, target: relative(SRC, resolve(SRC, dirname(file), m[1]!)).split('/') }))
        .filter((imp) => imp.target[0] === 'platforms' && imp.target.length > 2)
        .filter((imp) => imp.target[1] !== own && !SHARED_PLATFORM_FOLDERS.has(imp.target[1]!))
        .map((imp) => `${file} imports ${imp.spec}`);
    });
    expect(violations).toEqual([]);
  });
});
