import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import { callTool } from './call-tool.js';
import { grepFiles } from './grep.js';
import { buildTools, REVIEWER_TOOLS } from './index.js';

const SECRET = 'sk-live-0123456789abcdef';

let base: string;
let root: string;
let tools: ReturnType<typeof buildTools>;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'read-tools-test-')));
  root = path.join(base, 'ws');
  execFileSync('git', ['init', '-q', root]);
  mkdirSync(path.join(root, 'src', 'lib'), { recursive: true });
  mkdirSync(path.join(root, '.hidden'));
  writeFileSync(
    path.join(root, 'src', 'a.ts'),
    'export const a = 1;\nexport function add(x, y) {\n  return x + y;\n}\n',
  );
  writeFileSync(path.join(root, 'src', 'lib', 'b.ts'), 'import { a } from "../a";\nconsole.log(A);\n');
  writeFileSync(path.join(root, 'README.md'), '# Demo\nCall add() to add.\n');
  writeFileSync(path.join(root, '.hidden', 'x.ts'), 'hidden\n');
  writeFileSync(path.join(root, 'long-line.txt'), `${'x'.repeat(3000)}\nshort\n`);
  writeFileSync(
    path.join(root, 'many.txt'),
    Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'),
  );
  writeFileSync(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x61, 0x64, 0x64]));
  writeFileSync(path.join(root, 'empty.txt'), '');
  writeFileSync(path.join(root, 'leak.txt'), `token=${SECRET}\n`);
  writeFileSync(path.join(base, 'outside.txt'), 'add outside\n');
  symlinkSync('/etc', path.join(root, 'etc-link'));
  symlinkSync(path.join(base, 'outside.txt'), path.join(root, 'outside-link.txt'));
  symlinkSync('src/a.ts', path.join(root, 'inside-link.ts'));
  tools = buildTools(REVIEWER_TOOLS, {
    rootReal: root,
    homeDir: base,
    masker: new SecretMasker([SECRET]),
    onSubmit: () => undefined,
  });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('Read', () => {
  it('returns the file numbered like cat -n', async () => {
    const result = await callTool(tools, 'Read', { file_path: 'src/a.ts' });
    expect(result).toEqual({
      isError: false,
      output:
        '     1\texport const a = 1;\n     2\texport function add(x, y) {\n     3\t  return x + y;\n     4\t}',
    });
  });

  it('honours offset and limit and says which lines were shown', async () => {
    const result = await callTool(tools, 'Read', { file_path: 'many.txt', offset: 10, limit: 2 });
    expect(result.output).toBe(
      '    10\tline 10\n    11\tline 11\n(showing lines 10-11 of 2500; use offset and limit to read other lines)',
    );
  });

  it('reads 2000 lines by default', async () => {
    const lines = (await callTool(tools, 'Read', { file_path: 'many.txt' })).output.split('\n');
    expect(lines.at(-2)).toBe('  2000\tline 2000');
    expect(lines.at(-1)).toContain('showing lines 1-2000 of 2500');
  });

  it('cuts long lines', async () => {
    const result = await callTool(tools, 'Read', { file_path: 'long-line.txt' });
    const first = result.output.split('\n')[0] ?? '';
    expect(first).toBe(`     1\t${'x'.repeat(2000)}… [line truncated]`);
    expect(result.output).toContain('     2\tshort');
  });

  it('reads through a symlink that stays inside the workspace', async () => {
    const result = await callTool(tools, 'Read', { file_path: 'inside-link.ts' });
    expect(result.output).toContain('export const a = 1;');
  });

  it('masks secrets in file content', async () => {
    const result = await callTool(tools, 'Read', { file_path: 'leak.txt' });
    expect(result.output).toBe('     1\ttoken=***');
  });

  it.each([
    ['image.bin', /binary file/],
    ['src', /is a directory/],
    ['nope.ts', /does not exist/],
    ['../outside.txt', /leaves the workspace/],
    ['/etc/passwd', /absolute paths are not allowed/],
    ['.git/config', /\.git is not allowed/],
    ['etc-link/passwd', /outside the workspace/],
    ['outside-link.txt', /outside the workspace/],
  ])('refuses %s with an error and no content', async (file_path, message) => {
    const result = await callTool(tools, 'Read', { file_path });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(message);
    expect(result.output).not.toMatch(/root:|repositoryformatversion|add outside/);
    expect(result.output).not.toContain(base);
  });

  it('reports an empty file and an offset past the end', async () => {
    expect((await callTool(tools, 'Read', { file_path: 'empty.txt' })).output).toBe('(the file is empty)');
    const past = await callTool(tools, 'Read', { file_path: 'src/a.ts', offset: 50 });
    expect(past).toEqual({ isError: true, output: 'offset 50 is past the end of the file (4 lines)' });
  });
});

describe('Glob', () => {
  it('lists matching files sorted, dotfiles included, .git and outside links excluded', async () => {
    const result = await callTool(tools, 'Glob', { pattern: '**/*' });
    expect(result.output.split('\n')).toEqual([
      '.hidden/x.ts',
      'README.md',
      'empty.txt',
      'image.bin',
      'inside-link.ts',
      'leak.txt',
      'long-line.txt',
      'many.txt',
      'src/a.ts',
      'src/lib/b.ts',
    ]);
  });

  it('searches below path and returns workspace-relative paths', async () => {
    const result = await callTool(tools, 'Glob', { pattern: '**/*.ts', path: 'src' });
    expect(result.output).toBe('src/a.ts\nsrc/lib/b.ts');
  });

  it('says when nothing matched', async () => {
    expect((await callTool(tools, 'Glob', { pattern: '**/*.py' })).output).toBe('No files found.');
  });

  it.each([['etc-link'], ['../'], ['.git'], ['README.md']])('refuses path %s', async (dir) => {
    const result = await callTool(tools, 'Glob', { pattern: '*', path: dir });
    expect(result.isError).toBe(true);
  });
});

describe('Grep', () => {
  it('returns path:line:text for each matching line, sorted by path', async () => {
    const result = await callTool(tools, 'Grep', { pattern: 'add\\(' });
    expect(result.output.split('\n')).toEqual([
      'README.md:2:Call add() to add.',
      'inside-link.ts:2:export function add(x, y) {',
      'src/a.ts:2:export function add(x, y) {',
    ]);
  });

  it('filters by glob on the base name and by path', async () => {
    const byGlob = await callTool(tools, 'Grep', { pattern: 'add', glob: '*.ts' });
    expect(byGlob.output.split('\n')).toEqual([
      'inside-link.ts:2:export function add(x, y) {',
      'src/a.ts:2:export function add(x, y) {',
    ]);
    const byPath = await callTool(tools, 'Grep', { pattern: 'a', path: 'src/lib' });
    expect(byPath.output).toBe('src/lib/b.ts:1:import { a } from "../a";');
  });

  it('searches one file when path is a file, case-insensitive with -i', async () => {
    const result = await callTool(tools, 'Grep', {
      pattern: 'console.log\\(a\\)',
      path: 'src/lib/b.ts',
      '-i': true,
    });
    expect(result.output).toBe('src/lib/b.ts:2:console.log(A);');
  });

  it('never searches .git, binary files or files behind outside symlinks', async () => {
    for (const pattern of ['repositoryformatversion', 'root:', 'add outside', 'PNG|\\x50']) {
      const result = await callTool(tools, 'Grep', { pattern });
      expect(result).toEqual({ isError: false, output: 'No matches found.' });
    }
  });

  it('masks secrets in matching lines', async () => {
    const result = await callTool(tools, 'Grep', { pattern: 'token=' });
    expect(result.output).toBe('leak.txt:1:token=***');
  });

  it('answers an invalid pattern with an error', async () => {
    const result = await callTool(tools, 'Grep', { pattern: '(unclosed' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^invalid regular expression/);
  });

  it('stops a catastrophic pattern at the timeout instead of hanging', async () => {
    writeFileSync(path.join(root, 'redos.txt'), `${'a'.repeat(40)}!\n`);
    const started = Date.now();
    await expect(grepFiles(root, 'redos.txt', { pattern: '^(a+)+$' }, undefined, 300)).rejects.toThrow(
      /timed out/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    rmSync(path.join(root, 'redos.txt'));
  });
});
