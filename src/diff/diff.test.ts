import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileStatus, PullRequestFile } from './types.js';
import { parsePatch, toFileDiffs } from './diff.js';
import type { DiffHunk } from './diff.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'core.autocrlf=false', ...args],
    {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    },
  );
}

type Tree = Record<string, string | Buffer>;

function write(root: string, tree: Tree): void {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/**
 * Commits `base`, then turns it into `head` (files missing from `head` are deleted) and returns the
 * pull request's files as GitHub reports them: per-file patch from the first `@@`, no trailing
 * newline, no patch for binary files and pure renames.
 */
function pullRequestFiles(base: Tree, head: Tree): PullRequestFile[] {
  const root = mkdtempSync(join(tmpdir(), 'reviewbot-diff-'));
  dirs.push(root);
  git(root, ['init', '-q', '-b', 'main']);
  write(root, base);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '--allow-empty', '-m', 'base']);
  for (const path of Object.keys(base)) if (!(path in head)) unlinkSync(join(root, path));
  write(root, head);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'head']);
  const diff = git(root, ['diff', '-M', '--no-color', '--no-ext-diff', 'HEAD~1', 'HEAD']);
  const files: PullRequestFile[] = [];
  for (const section of diff.split(/^(?=diff --git )/m).filter((s) => s.length > 0)) {
    const headerEnd = section.search(/^@@ /m);
    const meta = headerEnd === -1 ? section : section.slice(0, headerEnd);
    const names = /^diff --git a\/(.+) b\/(.+)$/m.exec(meta)!;
    const renameFrom = /^rename from (.+)$/m.exec(meta)?.[1];
    let status: FileStatus = 'modified';
    if (/^new file mode/m.test(meta)) status = 'added';
    else if (/^deleted file mode/m.test(meta)) status = 'removed';
    else if (renameFrom !== undefined) status = 'renamed';
    const patch = headerEnd === -1 ? undefined : section.slice(headerEnd).replace(/\n$/, '');
    const lines = patch?.split('\n') ?? [];
    const file: PullRequestFile = {
      path: names[2]!,
      status,
      additions: lines.filter((l) => l.startsWith('+')).length,
      deletions: lines.filter((l) => l.startsWith('-')).length,
    };
    if (renameFrom !== undefined) file.previousPath = renameFrom;
    if (patch !== undefined) file.patch = patch;
    files.push(file);
  }
  return files;
}

/** Lines of a text file as an editor numbers them (line 1 = index 0), CR of CRLF removed. */
function linesOf(content: string | Buffer | undefined): string[] {
  return String(content ?? '')
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
}

/** Every numbered line of every hunk shows the text the real file has at that line, per side. */
function expectLinesMatchFiles(hunks: DiffHunk[], base: string[], head: string[]): void {
  for (const hunk of hunks) {
    const olds = hunk.lines.filter((l) => l.oldLine !== undefined);
    const news = hunk.lines.filter((l) => l.newLine !== undefined);
    expect(olds).toHaveLength(hunk.oldLines);
    expect(news).toHaveLength(hunk.newLines);
    for (const line of olds) expect(line.text, `old line ${line.oldLine}`).toBe(base[line.oldLine! - 1]);
    for (const line of news) expect(line.text, `new line ${line.newLine}`).toBe(head[line.newLine! - 1]);
  }
}

const hundred = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
const lines = (xs: string[]): string => `${xs.join('\n')}\n`;

describe('parsePatch on real git diffs', () => {
  it.each<{ name: string; base: Tree; head: Tree; hunks: number }>([
    {
      name: 'modified file, three separate hunks',
      base: { 'a.txt': lines(hundred) },
      head: {
        'a.txt': lines(
          hundred.flatMap((l, i) =>
            i === 4 ? ['inserted'] : i === 49 ? [] : i === 94 ? ['changed 95'] : [l],
          ),
        ),
      },
      hunks: 3,
    },
    { name: 'new file (@@ -0,0 +1,N @@)', base: {}, head: { 'new.ts': lines(['a', 'b', 'c']) }, hunks: 1 },
    { name: 'deleted file (@@ -1,N +0,0 @@)', base: { 'old.ts': lines(['x', 'y']) }, head: {}, hunks: 1 },
    {
      name: 'lines appended at the end of the file',
      base: { 'end.txt': lines(hundred) },
      head: { 'end.txt': lines([...hundred, 'tail 1', 'tail 2']) },
      hunks: 1,
    },
    {
      name: 'change in the first line',
      base: { 'start.txt': lines(hundred) },
      head: { 'start.txt': lines(['first', ...hundred.slice(1)]) },
      hunks: 1,
    },
    {
      name: 'newline at end of file removed (\\ No newline at end of file)',
      base: { 'nl.txt': 'one\ntwo\nthree\n' },
      head: { 'nl.txt': 'one\ntwo\nthree' },
      hunks: 1,
    },
    {
      name: 'newline at end of file added',
      base: { 'nl.txt': 'one\ntwo' },
      head: { 'nl.txt': 'one\ntwo\nthree\n' },
      hunks: 1,
    },
    {
      name: 'CRLF file',
      base: { 'win.txt': 'a\r\nb\r\nc\r\nd\r\n' },
      head: { 'win.txt': 'a\r\nB\r\nc\r\nd\r\ne\r\n' },
      hunks: 1,
    },
    {
      name: 'lines that look like file headers (removed "-- x", added "++ y")',
      base: { 'q.sql': lines(['select 1;', '-- old comment', '--', 'select 2;']) },
      head: { 'q.sql': lines(['select 1;', '++ new', '+++', 'select 2;']) },
      hunks: 1,
    },
    {
      name: 'empty lines inside hunks',
      base: { 'e.md': lines(['# t', '', 'para', '', 'end']) },
      head: { 'e.md': lines(['# t', '', 'para two', '', '', 'end']) },
      hunks: 1,
    },
    {
      name: 'renamed and modified',
      base: { 'src/old-name.ts': lines(hundred) },
      head: { 'src/new-name.ts': lines(hundred.map((l, i) => (i === 50 ? 'renamed edit' : l))) },
      hunks: 1,
    },
  ])('$name: every numbered line matches the real file', ({ base, head, hunks }) => {
    const [file] = pullRequestFiles(base, head);
    expect(file?.patch).toBeDefined();
    const parsed = parsePatch(file!.patch!);
    expect(parsed).toHaveLength(hunks);
    const oldPath = file!.previousPath ?? file!.path;
    expectLinesMatchFiles(parsed, base[oldPath] ? linesOf(base[oldPath]) : [], linesOf(head[file!.path]));
    const adds = parsed.flatMap((h) => h.lines).filter((l) => l.kind === 'add').length;
    const dels = parsed.flatMap((h) => h.lines).filter((l) => l.kind === 'del').length;
    expect([adds, dels]).toEqual([file!.additions, file!.deletions]);
  });

  it('parses a 10,000-line hunk with correct numbering on both sides', () => {
    const base = Array.from({ length: 10_000 }, (_, i) => `value ${i}`);
    const head = base.map((l, i) => (i % 2 === 0 ? `${l} changed` : l));
    const [file] = pullRequestFiles({ 'big.txt': lines(base) }, { 'big.txt': lines(head) });
    const started = performance.now();
    const parsed = parsePatch(file!.patch!);
    expect(performance.now() - started).toBeLessThan(500);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]!.lines).toHaveLength(15_000);
    expectLinesMatchFiles(parsed, base, head);
  });
});

describe('toFileDiffs on real git diffs', () => {
  it('marks binary files, keeps pure renames as hunk-less non-binary files, and keeps statuses', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3, 0, 255]);
    const body = lines(hundred);
    const files = pullRequestFiles(
      { 'img.png': png, 'docs/guide.md': body, 'gone.txt': 'bye\n' },
      { 'img.png': Buffer.concat([png, Buffer.from([0, 9])]), 'docs/manual.md': body, 'new.txt': 'hi\n' },
    );
    const diffs = toFileDiffs(files);
    const byPath = new Map(diffs.map((d) => [d.path, d]));
    expect(byPath.get('img.png')).toMatchObject({ binary: true, hunks: [], status: 'modified' });
    expect(byPath.get('docs/manual.md')).toMatchObject({
      binary: false,
      hunks: [],
      status: 'renamed',
      previousPath: 'docs/guide.md',
    });
    expect(byPath.get('gone.txt')).toMatchObject({ binary: false, status: 'removed' });
    expect(byPath.get('gone.txt')!.hunks[0]).toMatchObject({
      oldStart: 1,
      oldLines: 1,
      newStart: 0,
      newLines: 0,
    });
    expect(byPath.get('new.txt')!.hunks[0]).toMatchObject({
      oldStart: 0,
      oldLines: 0,
      newStart: 1,
      newLines: 1,
    });
  });
});
