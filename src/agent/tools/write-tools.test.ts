import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretMasker } from '../../secrets.js';
import { probeSandbox, type ToolSandbox } from '../sandbox/index.js';
import { MAX_BASH_OUTPUT_CHARS } from './bash.js';
import { callTool } from './call-tool.js';
import { buildTools, REVIEWER_TOOLS, WORKER_TOOLS } from './index.js';
import type { SubmitReviewInput } from './submit-review.js';

const SECRET = 'sk-live-0123456789abcdef';
const ABSOLUTE = path.join(tmpdir(), `reviewbot-write-abs-${process.pid}.txt`);

let base: string;
let root: string;
let home: string;
let tools: ReturnType<typeof buildTools>;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'write-tools-test-')));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  mkdirSync(home);
  execFileSync('git', ['init', '-q', root]);
  mkdirSync(path.join(root, 'src'));
  mkdirSync(path.join(base, 'outside-dir'));
  symlinkSync(path.join(base, 'outside-dir'), path.join(root, 'out-link'));
  tools = buildTools(WORKER_TOOLS, {
    rootReal: root,
    homeDir: home,
    masker: new SecretMasker([SECRET]),
    onSubmit: () => {},
  });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const read = (relative: string) => readFileSync(path.join(root, relative), 'utf8');

describe('Write', () => {
  it('creates a file with its parent directories, then replaces it', async () => {
    expect(await callTool(tools, 'Write', { file_path: 'src/new/deep.ts', content: 'one\n' })).toEqual({
      isError: false,
      output: 'Created src/new/deep.ts (4 bytes).',
    });
    expect(read('src/new/deep.ts')).toBe('one\n');
    const again = await callTool(tools, 'Write', { file_path: 'src/new/deep.ts', content: 'two' });
    expect(again.output).toBe('Replaced src/new/deep.ts (3 bytes).');
    expect(read('src/new/deep.ts')).toBe('two');
  });

  it.each([
    ['.git/hooks/pre-commit', /\.git is not allowed/],
    ['../escape.txt', /leaves the workspace/],
    [ABSOLUTE, /absolute paths/],
    ['out-link/planted.txt', /outside the workspace/],
    ['src', /is a directory/],
  ])('refuses %s and writes nothing', async (file_path, message) => {
    const result = await callTool(tools, 'Write', { file_path, content: 'x' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(message);
    expect(existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(path.join(base, 'escape.txt'))).toBe(false);
    expect(existsSync(ABSOLUTE)).toBe(false);
    expect(existsSync(path.join(base, 'outside-dir', 'planted.txt'))).toBe(false);
  });
});

describe('Edit', () => {
  afterEach(() => rmSync(path.join(root, 'edit.txt'), { force: true }));

  it('replaces a unique string literally', async () => {
    writeFileSync(path.join(root, 'edit.txt'), 'const price = 1;\nconst tax = 2;\n');
    const result = await callTool(tools, 'Edit', {
      file_path: 'edit.txt',
      old_string: 'price = 1',
      new_string: "price = '$&'",
    });
    expect(result).toEqual({ isError: false, output: 'Edited edit.txt: 1 replacement.' });
    expect(read('edit.txt')).toBe("const price = '$&';\nconst tax = 2;\n");
  });

  it('refuses a string that is missing or not unique, and replaces all when asked', async () => {
    writeFileSync(path.join(root, 'edit.txt'), 'a = 1\na = 1\n');
    const missing = await callTool(tools, 'Edit', {
      file_path: 'edit.txt',
      old_string: 'b = 1',
      new_string: 'c',
    });
    expect(missing).toEqual({ isError: true, output: 'old_string was not found in edit.txt' });
    const twice = await callTool(tools, 'Edit', {
      file_path: 'edit.txt',
      old_string: 'a = 1',
      new_string: 'a = 2',
    });
    expect(twice.isError).toBe(true);
    expect(twice.output).toMatch(/occurs 2 times/);
    expect(read('edit.txt')).toBe('a = 1\na = 1\n');
    const all = await callTool(tools, 'Edit', {
      file_path: 'edit.txt',
      old_string: 'a = 1',
      new_string: 'a = 2',
      replace_all: true,
    });
    expect(all.output).toBe('Edited edit.txt: 2 replacements.');
    expect(read('edit.txt')).toBe('a = 2\na = 2\n');
  });

  it('refuses .git and files outside the workspace', async () => {
    for (const file_path of ['.git/config', '../outside.txt', 'out-link/x.txt']) {
      const result = await callTool(tools, 'Edit', { file_path, old_string: 'a', new_string: 'b' });
      expect(result.isError).toBe(true);
    }
    expect(read('.git/config')).toContain('repositoryformatversion');
  });
});

// Bash behaves the same unsandboxed (`agent.sandbox: off`) and inside bubblewrap; where no sandbox
// works, the sandboxed variant asserts the refusal instead (CONTRACT §16).
const detected = await probeSandbox('auto');
const modes: [string, ToolSandbox][] = [
  ['off', { status: { kind: 'off' }, networkHosts: [] }],
  [detected.kind, { status: detected, networkHosts: [] }],
];

describe.each(modes)('Bash (sandbox %s)', (_kind, sandbox) => {
  let tools: ReturnType<typeof buildTools>;
  beforeAll(() => {
    tools = buildTools(WORKER_TOOLS, {
      rootReal: root,
      homeDir: home,
      masker: new SecretMasker([SECRET]),
      onSubmit: () => {},
      sandbox,
    });
  });

  it.runIf(sandbox.status.kind === 'unavailable')('is refused with the reason', async () => {
    const result = await callTool(tools, 'Bash', { command: 'echo hi' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^Bash is unavailable: no working sandbox/);
  });
});

describe.each(modes.filter(([, sandbox]) => sandbox.status.kind !== 'unavailable'))(
  'Bash (sandbox %s)',
  (_kind, sandbox) => {
    let tools: ReturnType<typeof buildTools>;
    beforeAll(() => {
      tools = buildTools(WORKER_TOOLS, {
        rootReal: root,
        homeDir: home,
        masker: new SecretMasker([SECRET]),
        onSubmit: () => {},
        sandbox,
      });
    });

    it('runs in the workspace with HOME outside it', async () => {
      const result = await callTool(tools, 'Bash', { command: 'pwd; echo "home=$HOME"; echo err >&2' });
      expect(result).toEqual({ isError: false, output: `${root}\nhome=${home}\nerr\n` });
    });

    it('gives the command no token, key or store URL from the parent environment', async () => {
      const planted = {
        GITHUB_TOKEN: 'ghp_plantedtoken000000000000',
        ANTHROPIC_API_KEY: 'sk-ant-planted-key-000000',
        STORE_URL: 'redis://:storepass123@store:6379/0',
        CODEHOST_WEBHOOK_SECRET: 'whsec-planted-000000',
      };
      const saved = { ...process.env };
      Object.assign(process.env, planted);
      try {
        const result = await callTool(tools, 'Bash', { command: 'env' });
        expect(result.isError).toBe(false);
        expect(result.output).toMatch(/^PATH=/m);
        for (const [name, value] of Object.entries(planted)) {
          expect(result.output).not.toContain(name);
          expect(result.output).not.toContain(value);
        }
      } finally {
        for (const name of Object.keys(planted)) {
          if (saved[name] === undefined) delete process.env[name];
          else process.env[name] = saved[name];
        }
      }
    });

    it('returns a non-zero exit as an error carrying the output', async () => {
      const result = await callTool(tools, 'Bash', { command: 'echo partial; exit 3' });
      expect(result).toEqual({ isError: true, output: 'Command exited with code 3.\npartial\n' });
    });

    it('kills the command and its children at the timeout', async () => {
      const started = Date.now();
      const result = await callTool(tools, 'Bash', {
        command: 'sleep 30 & sleep 30; echo never',
        timeout: 300,
      });
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(/^Command timed out after 300 ms/);
      expect(result.output).not.toContain('never');
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('caps long output and masks secrets', async () => {
      const long = await callTool(tools, 'Bash', { command: 'yes 0123456789 | head -c 200000' });
      expect(long.output.length).toBeLessThan(MAX_BASH_OUTPUT_CHARS + 100);
      expect(long.output).toMatch(/characters omitted/);
      const masked = await callTool(tools, 'Bash', { command: `echo ${SECRET}` });
      expect(masked.output).toBe('***\n');
    });
  },
);

describe('submit_review and tool sets', () => {
  it('records the review and answers "Review submitted."', async () => {
    const received: SubmitReviewInput[] = [];
    const reviewer = buildTools(REVIEWER_TOOLS, {
      rootReal: root,
      homeDir: home,
      masker: new SecretMasker(),
      onSubmit: (review) => received.push(review),
    });
    const review = { summary: 'Looks fine.', comments: [{ path: 'src/a.ts', line: 2, body: 'Typo.' }] };
    expect(await callTool(reviewer, 'submit_review', review)).toEqual({
      isError: false,
      output: 'Review submitted.',
    });
    expect(received).toEqual([review]);
    expect(Object.keys(reviewer).sort()).toEqual(['Glob', 'Grep', 'Read', 'submit_review']);
  });

  it('gives a WORKER the write tools and no submit_review', () => {
    expect(Object.keys(tools).sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
  });
});
