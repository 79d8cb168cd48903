import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { survivorRunning, SURVIVOR_MARK } from '../../../test/support/sandbox-battery.js';
import { probeSandbox, runToolCommand } from '../../agent/sandbox/index.js';
import { openDisposableTree, overlayLauncherScript } from './disposable-tree.js';
import { hashTree } from './tree-hash.test-helper.js';

const detected = await probeSandbox('auto');

describe.runIf(detected.kind === 'bwrap')('a disposable tree over a workspace', () => {
  let base: string;
  let workspace: string;
  let scratch: string;
  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'disposable-tree-test-')));
    workspace = path.join(base, 'pr-7');
    scratch = path.join(base, 'scratch');
    execFileSync('git', ['init', '-q', workspace]);
    execFileSync('mkdir', [scratch]);
    writeFileSync(path.join(workspace, 'a.js'), 'export const a = 1;\n');
    writeFileSync(path.join(workspace, 'b.js'), 'export const b = 2;\n');
    execFileSync('git', ['-C', workspace, 'add', '.']);
    execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'c']);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('keeps writes across the run’s commands, shows none of them to the workspace, and leaves nothing', async () => {
    if (detected.kind !== 'bwrap') return;
    const before = hashTree(workspace);
    const tree = await openDisposableTree({ workspace, sandbox: detected, parentDir: scratch });
    const home = mkdtempSync(path.join(base, 'home-'));
    const run = (command: string) =>
      runToolCommand(command, { workspace: tree.workspace, home, timeoutMs: 20_000, sandbox: tree.sandbox });
    const first = await run(
      'echo changed >> a.js && rm b.js && echo probe > probe.test.js && mkdir -p d && echo ok',
    );
    expect(first.output).toContain('ok');
    expect(first.exitCode).toBe(0);
    const second = await run('cat a.js probe.test.js; ls; git status --porcelain');
    expect(second.output).toContain('changed');
    expect(second.output).toContain('probe');
    expect(second.output).not.toMatch(/^b\.js$/m);
    expect(second.output).toMatch(/D b\.js/);
    const gitWrite = await run('echo x > .git/HEAD');
    expect(gitWrite.exitCode).not.toBe(0);
    // The workspace (and its .git) saw nothing; the writes are in the upper layer only.
    expect(hashTree(workspace)).toBe(before);
    expect(readFileSync(path.join(workspace, 'a.js'), 'utf8')).toBe('export const a = 1;\n');
    expect(readdirSync(tree.upperDir).sort()).toEqual(['a.js', 'b.js', 'd', 'probe.test.js']);
    await tree.close();
    expect(existsSync(path.dirname(tree.upperDir))).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);
    // A new tree starts from the workspace again.
    const again = await openDisposableTree({ workspace, sandbox: detected, parentDir: scratch });
    const fresh = await runToolCommand('ls', { workspace, home, timeoutMs: 20_000, sandbox: again.sandbox });
    expect(fresh.output.split('\n').sort()).toEqual(['', 'a.js', 'b.js']);
    await again.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('stop kills what runs in the copy and refuses later commands; close does the same', async () => {
    if (detected.kind !== 'bwrap') return;
    const home = mkdtempSync(path.join(base, 'home-'));
    for (const end of ['stop', 'close'] as const) {
      const tree = await openDisposableTree({ workspace, sandbox: detected, parentDir: scratch });
      const run = (command: string) =>
        runToolCommand(command, {
          workspace: tree.workspace,
          home,
          timeoutMs: 60_000,
          sandbox: tree.sandbox,
        });
      const sleeping = run(`touch started; sleep ${SURVIVOR_MARK}`);
      while (!existsSync(path.join(tree.upperDir, 'started'))) await new Promise((r) => setTimeout(r, 50));
      expect(survivorRunning()).toBe(true);
      const started = Date.now();
      await tree[end]();
      expect(survivorRunning()).toBe(false);
      expect((await sleeping).exitCode).not.toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      if (end === 'stop') {
        const later = await run('touch later; echo ran');
        expect(later.exitCode).toBe(125);
        expect(later.output).not.toContain('ran');
        expect(existsSync(path.join(tree.upperDir, 'later'))).toBe(false);
        await tree.close();
      }
    }
    expect(readdirSync(scratch)).toEqual([]);
    rmSync(home, { recursive: true, force: true });
  });

  it('has no network whatever the host allows', async () => {
    if (detected.kind !== 'bwrap') return;
    const tree = await openDisposableTree({ workspace, sandbox: detected, parentDir: scratch });
    expect(tree.sandbox.networkHosts).toEqual([]);
    await tree.close();
  });

  it('refuses an upper layer inside the workspace', async () => {
    if (detected.kind !== 'bwrap') return;
    await expect(openDisposableTree({ workspace, sandbox: detected, parentDir: workspace })).rejects.toThrow(
      /inside the workspace/,
    );
  });
});

describe('overlayLauncherScript', () => {
  const paths = {
    unshare: '/usr/bin/unshare',
    bwrapPath: '/usr/bin/bwrap',
    workspace: '/w/pr-1',
    upperDir: '/t/u',
    workDir: '/t/w',
  };
  it('mounts the overlay at the workspace path and then runs bubblewrap, or stops with 125', () => {
    const script = overlayLauncherScript(paths);
    expect(script).toContain("'/w/pr-1' '/t/u' '/t/w' '/usr/bin/bwrap' \"$@\"");
    expect(script).toContain('exit 125');
    // bubblewrap runs as a child: the shell naming the upper layer stays, for the tree to kill.
    expect(script).not.toContain('exec "$B"');
  });
  it('registers the launch first when told how, and refuses a registration it cannot quote', () => {
    const register = ['/bin/sh', '-c', 'echo > "$1/$$"; shift; exec "$@"', 'sh', '/t/pids'];
    expect(overlayLauncherScript({ ...paths, register })).toContain(
      `exec '/bin/sh' '-c' 'echo > "$1/$$"; shift; exec "$@"' 'sh' '/t/pids' '/usr/bin/unshare' --user`,
    );
    expect(() => overlayLauncherScript({ ...paths, register: ["it's"] })).toThrow(/single quote/);
  });
  it.each([',', ':', "'", '\\', '\n'])('refuses a path holding %j', (char) => {
    expect(() => overlayLauncherScript({ ...paths, workspace: `/w/pr${char}1` })).toThrow(
      /plain absolute path/,
    );
  });
});
