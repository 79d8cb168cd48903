import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox, runToolCommand } from '../../agent/sandbox/index.js';
import { SecretMasker } from '../../secrets.js';
import { openDisposableTree } from './disposable-tree.js';
import {
  MAX_ENCODED_PROBE_CHARS,
  MAX_PROBE_ENTRIES_VISITED,
  MAX_PROBE_FILES,
  captureProbeFiles,
  decodeProbe,
  encodeProbe,
  isSafeProbePath,
  type Probe,
} from './probe.js';
import { rerunProbe } from './rerun-probe.js';
import { hashTree } from './tree-hash.test-helper.js';

describe('capturing a probe from an upper layer', () => {
  it('keeps the first files by path and stops reading there; looks at a bounded number of entries', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'probe-capture-')));
    try {
      const upper = path.join(dir, 'upper');
      const lower = path.join(dir, 'lower');
      execFileSync('mkdir', ['-p', path.join(upper, 'many'), lower]);
      for (let i = 0; i < 20; i++)
        writeFileSync(path.join(upper, `t${String(i).padStart(2, '0')}.mjs`), `// ${i}\n`);
      const kept = await captureProbeFiles(upper, lower);
      expect(kept.map((f) => f.path)).toEqual(
        Array.from({ length: MAX_PROBE_FILES }, (_, i) => `t${String(i).padStart(2, '0')}.mjs`),
      );
      // Thousands of entries it must pass over (not UTF-8) before the one it could keep: the walk
      // gives up after MAX_PROBE_ENTRIES_VISITED instead of reading them all.
      rmSync(upper, { recursive: true });
      execFileSync('mkdir', ['-p', path.join(upper, 'a')]);
      const junk = Buffer.from([0xff, 0xfe]);
      for (let i = 0; i < MAX_PROBE_ENTRIES_VISITED + 10; i++)
        writeFileSync(path.join(upper, 'a', `j${i}`), junk);
      writeFileSync(path.join(upper, 'z.mjs'), 'process.exit(1);\n');
      expect(await captureProbeFiles(upper, lower)).toEqual([]);
      rmSync(path.join(upper, 'a'), { recursive: true });
      expect(await captureProbeFiles(upper, lower)).toEqual([
        { path: 'z.mjs', content: 'process.exit(1);\n' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('probe encoding', () => {
  it('round-trips a command and its files, bytes exact', () => {
    const probe: Probe = {
      command: 'node --test probe.test.mjs',
      files: [
        { path: 'probe.test.mjs', content: "import test from 'node:test';\r\ntest('x', () => {});" },
        { path: 'test/deep/ünïcode.txt', content: 'a\u0000b\n' },
      ],
    };
    const encoded = encodeProbe(probe);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeProbe(encoded as string)).toEqual(probe);
  });

  it('drops files until it fits, and gives up on a command too long or empty', () => {
    const random = (n: number) =>
      Array.from({ length: n }, () => Math.random().toString(36).slice(2)).join('');
    const probe: Probe = {
      command: 'sh probe.sh',
      files: [
        { path: 'probe.sh', content: 'exit 1\n' },
        { path: 'noise.txt', content: random(2000) },
      ],
    };
    const encoded = encodeProbe(probe) as string;
    expect(encoded.length).toBeLessThanOrEqual(MAX_ENCODED_PROBE_CHARS);
    expect(decodeProbe(encoded)).toEqual({ command: 'sh probe.sh', files: [probe.files[0]] });
    expect(encodeProbe({ command: '  ', files: [] })).toBeUndefined();
    expect(encodeProbe({ command: 'x'.repeat(2001), files: [] })).toBeUndefined();
  });

  it('refuses what it did not write: bad alphabet, not gzip, wrong shape, unsafe paths', () => {
    const pack = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value))).toString('base64url');
    expect(decodeProbe('not base64!')).toBeUndefined();
    expect(decodeProbe('AAAA')).toBeUndefined();
    expect(decodeProbe(pack({ c: 'true', f: [['../escape', 'x']] }))).toBeUndefined();
    expect(decodeProbe(pack({ c: 'true', f: [['.git/hooks/pre-commit', 'x']] }))).toBeUndefined();
    expect(decodeProbe(pack({ c: 'true', f: [['/etc/passwd', 'x']] }))).toBeUndefined();
    expect(decodeProbe(pack({ c: '', f: [] }))).toBeUndefined();
    expect(decodeProbe(pack({ c: 'true', f: [['a', 1]] }))).toBeUndefined();
    expect(decodeProbe(pack([1, 2]))).toBeUndefined();
    expect(decodeProbe(pack({ c: 'true', f: [['ok/a.txt', 'x']] }))).toEqual({
      command: 'true',
      files: [{ path: 'ok/a.txt', content: 'x' }],
    });
  });

  it('knows a safe path', () => {
    expect(isSafeProbePath('a/b.test.js')).toBe(true);
    for (const bad of ['', '/a', 'a/../b', './a', 'a//b', 'a\\b', '.GIT/config', 'a\nb', 'x'.repeat(513)])
      expect(isSafeProbePath(bad), bad).toBe(false);
  });
});

const detected = await probeSandbox('auto');

describe.runIf(detected.kind === 'bwrap')('a probe captured from a run and run again on a new head', () => {
  let base: string;
  let workspace: string;
  let scratch: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args]);
  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'probe-test-')));
    workspace = path.join(base, 'pr-3');
    scratch = path.join(base, 'scratch');
    execFileSync('mkdir', ['-p', workspace, scratch]);
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(path.join(workspace, 'sum.mjs'), 'export const sum = (a, b) => a - b;\n');
    git('add', '.');
    git('commit', '-qm', 'bug');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('keeps the files the run created (not the ones it changed, not caches) and replays them', async () => {
    if (detected.kind !== 'bwrap') return;
    const tree = await openDisposableTree({ workspace, sandbox: detected, parentDir: scratch });
    const home = mkdtempSync(path.join(base, 'home-'));
    const run = (command: string) =>
      runToolCommand(command, { workspace: tree.workspace, home, timeoutMs: 20_000, sandbox: tree.sandbox });
    const probeCommand = `node probe/sum.check.mjs`;
    await run(
      [
        'mkdir -p probe node_modules/x',
        `printf '%s\\n' "import { sum } from '../sum.mjs';" "if (sum(2, 2) !== 4) { console.error('sum(2,2) =', sum(2, 2)); process.exit(1); }" "console.log('ok');" > probe/sum.check.mjs`,
        'echo cached > node_modules/x/index.js',
        // the run "reverts the suspect change": a changed tracked file is not part of the probe
        "echo 'export const sum = (a, b) => a + b;' > sum.mjs",
      ].join(' && '),
    );
    const shown = await run(probeCommand);
    expect(shown.exitCode).toBe(0);
    const files = await captureProbeFiles(tree.upperDir, workspace);
    await tree.close();
    expect(files.map((f) => f.path)).toEqual(['probe/sum.check.mjs']);
    const probe = decodeProbe(encodeProbe({ command: probeCommand, files }) as string) as Probe;

    const masker = new SecretMasker(['s3cr3t-value']);
    const before = hashTree(workspace);
    const stillBuggy = await rerunProbe({
      probe,
      workspace,
      sandbox: { status: detected, networkHosts: [] },
      timeoutMs: 20_000,
      masker,
      scratchDir: scratch,
    });
    expect(stillBuggy.status).toBe('fails');
    expect(stillBuggy.output).toContain('sum(2,2) = 0');
    expect(hashTree(workspace)).toBe(before);

    // The fix lands on the head: the same probe passes.
    writeFileSync(path.join(workspace, 'sum.mjs'), 'export const sum = (a, b) => a + b;\n');
    git('commit', '-qam', 'fix');
    const fixed = await rerunProbe({
      probe,
      workspace,
      sandbox: { status: detected, networkHosts: [] },
      timeoutMs: 20_000,
      masker,
      scratchDir: scratch,
    });
    expect(fixed).toMatchObject({ status: 'passes', exitCode: 0 });
    expect(fixed.output).toContain('ok');
    expect(readFileSync(path.join(workspace, 'sum.mjs'), 'utf8')).toContain('a + b');
    expect(() => readFileSync(path.join(workspace, 'probe/sum.check.mjs'))).toThrow();
  });

  it('kills a probe past its limit and masks secrets in what it prints', async () => {
    if (detected.kind !== 'bwrap') return;
    const masker = new SecretMasker(['s3cr3t-value']);
    const marker = `probe-sleep-${process.pid}`;
    const started = Date.now();
    const slow = await rerunProbe({
      probe: { command: `echo s3cr3t-value; sleep 600 # ${marker}`, files: [] },
      workspace,
      sandbox: { status: detected, networkHosts: [] },
      timeoutMs: 1_500,
      masker,
      scratchDir: scratch,
    });
    expect(slow.status).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(slow.output).not.toContain('s3cr3t-value');
    const left = execFileSync('ps', ['-eo', 'args'])
      .toString()
      .split('\n')
      .filter((l) => l.includes(marker));
    expect(left.filter((l) => !l.includes('ps -eo'))).toEqual([]);
  });

  it('reports a probe it cannot lay out instead of throwing (a file where a directory must be)', async () => {
    if (detected.kind !== 'bwrap') return;
    const result = await rerunProbe({
      probe: {
        command: 'true',
        files: [
          { path: 'a', content: 'x' },
          { path: 'a/b', content: 'y' },
        ],
      },
      workspace,
      sandbox: { status: detected, networkHosts: [] },
      timeoutMs: 5_000,
      masker: new SecretMasker([]),
      scratchDir: scratch,
    });
    expect(result.status).toBe('not-run');
    expect(result.reason).toMatch(/ENOTDIR|EEXIST|not a directory/i);
  });

  it('runs nothing without a sandbox', async () => {
    const result = await rerunProbe({
      probe: { command: 'touch /tmp/should-not-exist', files: [] },
      workspace,
      sandbox: { status: { kind: 'off' }, networkHosts: [] },
      timeoutMs: 1_000,
      masker: new SecretMasker([]),
    });
    expect(result.status).toBe('not-run');
    expect(result.reason).toMatch(/sandbox is off/);
  });
});
