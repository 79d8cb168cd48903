import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, SANDBOX_PROXY_DIR } from './bwrap-args.js';
import { isHostAllowed } from './network-proxy.js';
import { WORKSPACE_READ_ONLY } from './run-sandboxed.js';

const layout = {
  workspace: '/w/acme/widgets/pr-7',
  home: '/tmp/reviewbot-home-x',
  systemEntries: {
    '/bin': { kind: 'symlink' as const, target: 'usr/bin' },
    '/lib64': { kind: 'dir' as const },
  },
  readOnly: ['/opt/node'],
  workspaceReadOnly: WORKSPACE_READ_ONLY,
  env: { PATH: '/usr/bin', HOME: '/tmp/reviewbot-home-x' },
};

/** The flag pairs of an argument list, e.g. `--bind a b` → `--bind a b` strings. */
function mounts(args: string[], flag: string): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    if (arg === flag) out.push(`${args[i + 1]} ${args[i + 2]}`);
  });
  return out;
}

describe('buildBwrapArgs', () => {
  const args = buildBwrapArgs(layout, ['/bin/sh', '-c', 'make test']);

  it('unshares every namespace, drops capabilities and dies with its parent', () => {
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-net',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args.join(' ')).toContain('--proc /proc --dev /dev --tmpfs /tmp');
  });

  it('binds only the workspace and HOME writable, the system read-only, then remounts / read-only', () => {
    expect(mounts(args, '--bind')).toEqual([
      `${layout.home} ${layout.home}`,
      `${layout.workspace} ${layout.workspace}`,
    ]);
    expect(mounts(args, '--ro-bind')).toEqual(['/usr /usr', '/lib64 /lib64', '/opt/node /opt/node']);
    // All of `.git`, bound after (over) the writable workspace.
    expect(mounts(args, '--ro-bind-try')).toContain(`${layout.workspace}/.git ${layout.workspace}/.git`);
    expect(args.indexOf(`${layout.workspace}/.git`)).toBeGreaterThan(args.indexOf(layout.workspace));
    expect(
      mounts(args, '--ro-bind-try').every(
        (m) => !m.startsWith('/etc/shadow') && !m.startsWith('/etc/reviewbot'),
      ),
    ).toBe(true);
    expect(args.join(' ')).toContain('--symlink usr/bin /bin');
    expect(args.indexOf('--remount-ro')).toBeGreaterThan(args.lastIndexOf('--bind'));
  });

  it('sets exactly the given environment and runs the command after --', () => {
    expect(mounts(args, '--setenv')).toEqual(['PATH /usr/bin', 'HOME /tmp/reviewbot-home-x']);
    expect(args.slice(args.indexOf('--'))).toEqual(['--', '/bin/sh', '-c', 'make test']);
    expect(args.join(' ')).toContain(`--chdir ${layout.workspace}`);
  });

  it('binds the proxy socket directory only when network hosts are allowed', () => {
    expect(args.join(' ')).not.toContain(SANDBOX_PROXY_DIR);
    const withProxy = buildBwrapArgs({ ...layout, proxyDir: '/tmp/p' }, ['true']);
    expect(mounts(withProxy, '--ro-bind')).toContain(`/tmp/p ${SANDBOX_PROXY_DIR}`);
  });
});

describe('isHostAllowed', () => {
  it.each([
    [['registry.npmjs.org'], 'registry.npmjs.org', 443, true],
    [['registry.npmjs.org'], 'REGISTRY.npmjs.org.', 80, true],
    [['registry.npmjs.org'], 'evil.registry.npmjs.org', 443, false],
    [['registry.npmjs.org'], 'registry.npmjs.org.evil.com', 443, false],
    [['localhost:8080'], 'localhost', 8080, true],
    [['localhost:8080'], 'localhost', 8081, false],
    [['localhost'], '127.0.0.1', 80, false],
    [[], 'localhost', 80, false],
  ])('%j allows %s:%i → %s', (allowed, host, port, expected) => {
    expect(isHostAllowed(allowed, host, port)).toBe(expected);
  });
});
