import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError } from '../errors.js';
import { startGitFixture, type GitFixture } from './git-fixture.test-helper.js';
import { assertBranchName, assertSafeCloneUrl, runGit } from './git.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'reviewbot-git-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/home/someone',
  GITHUB_TOKEN: 'ghp_basetoken1234567890',
  OPENAI_API_KEY: 'sk-openaikey1234567890',
  STORE_URL: 'redis://:storepassword@store:6379/0',
  GIT_DIR: '/elsewhere/.git',
  GIT_CONFIG_PARAMETERS: "'core.hookspath'='/tmp/evil'",
  HTTPS_PROXY: 'http://proxy.internal:3128',
  UNRELATED: 'value',
};

describe('runGit: environment and configuration', () => {
  it('gives git children only a scrubbed environment plus the two credential variables', async () => {
    const { stdout } = await runGit(['showenv'], {
      cwd: dir,
      env: baseEnv,
      credentials: { username: 'x-access-token', password: 'ghs_passwordpassword' },
      config: { 'alias.showenv': '!env' },
    });
    const vars = new Map(
      stdout.split('\n').map((line) => [line.split('=')[0], line.slice(line.indexOf('=') + 1)]),
    );
    expect(stdout).not.toMatch(/ghp_basetoken|sk-openaikey|storepassword|\/elsewhere|\/tmp\/evil|UNRELATED/);
    expect(vars.get('REVIEWBOT_GIT_USERNAME')).toBe('x-access-token');
    expect(vars.get('REVIEWBOT_GIT_PASSWORD')).toBe('ghs_passwordpassword');
    expect(vars.get('GIT_TERMINAL_PROMPT')).toBe('0');
    expect(vars.get('GIT_CONFIG_NOSYSTEM')).toBe('1');
    expect(vars.get('GIT_CONFIG_GLOBAL')).toBe('/dev/null');
    expect(vars.get('HTTPS_PROXY')).toBe('http://proxy.internal:3128');
    expect(vars.get('HOME')).not.toBe('/home/someone');
  });

  it('applies the hardened configuration, and a helper only when credentials are given', async () => {
    const list = async (credentials?: { username: string; password: string }) =>
      (await runGit(['config', '--list', '--show-scope'], { cwd: dir, env: baseEnv, credentials })).stdout;
    const without = await list();
    expect(without).toContain('command\tcore.hookspath=/dev/null');
    expect(without).toContain('command\tprotocol.file.allow=never');
    expect(without).toContain('command\tprotocol.allow=never');
    expect(without).toContain('command\thttp.sslverify=true');
    expect(without).toContain('command\tsubmodule.recurse=false');
    expect(without.match(/credential\.helper=/g)).toHaveLength(1);
    expect(without).toContain('command\tcredential.helper=\n');

    const withCredentials = await list({ username: 'u', password: 'ghs_passwordpassword' });
    expect(withCredentials).toMatch(/command\tcredential\.helper=!f\(\) \{.*REVIEWBOT_GIT_PASSWORD/);
    expect(withCredentials).not.toContain('ghs_passwordpassword');
  });
});

describe('runGit: transports', () => {
  it('refuses ssh, so a configured ssh command never runs', async () => {
    const marker = path.join(dir, 'ssh-ran');
    const config = { 'core.sshCommand': `touch '${marker}'; false` };
    await expect(runGit(['ls-remote', 'ssh://127.0.0.1/x.git'], { cwd: dir, config })).rejects.toThrow(
      /transport 'ssh' not allowed/,
    );
    await expect(access(marker)).rejects.toThrow();
    // Control: without the transport restriction git runs the command.
    await expect(
      runGit(['ls-remote', 'ssh://127.0.0.1/x.git'], {
        cwd: dir,
        config: { ...config, 'protocol.ssh.allow': 'always' },
      }),
    ).rejects.toThrow(GitError);
    await expect(access(marker)).resolves.toBeUndefined();
  });
});

describe('runGit: credentials over HTTP', () => {
  let fx: GitFixture;
  beforeEach(async () => {
    fx = await startGitFixture();
  });
  afterEach(async () => {
    await fx.close();
  });

  it.each([
    ['unscoped', undefined, true],
    ['scoped to the clone URL', 'clone', true],
    ['scoped to another host', 'http://127.0.0.1:1', false],
  ])('helper %s: clone succeeds = %s', async (_name, scope, succeeds) => {
    const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
    const run = runGit(['clone', '--quiet', '--', url, 'out'], {
      cwd: dir,
      credentials: { username: 'x-access-token', password: fx.token },
      credentialUrl: scope === 'clone' ? url : scope,
    });
    if (succeeds) {
      await run;
      expect(fx.handler.requests.some((r) => r.authorized)).toBe(true);
    } else {
      await expect(run).rejects.toThrow(GitError);
      expect(fx.handler.requests.some((r) => r.authorized)).toBe(false);
    }
  });

  it.each([
    ['scoped to the clone URL', 'clone', true],
    ['scoped to another host', 'http://127.0.0.1:1', false],
  ])(
    'an Authorization header credential (Azure DevOps) %s: sent up front = %s, never stored',
    async (_name, scope, succeeds) => {
      const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
      const authorization = `Basic ${Buffer.from(`:${fx.token}`).toString('base64')}`;
      const run = runGit(['clone', '--quiet', '--', url, 'out'], {
        cwd: dir,
        credentials: { username: '', password: fx.token, authorization },
        credentialUrl: scope === 'clone' ? url : scope,
      });
      if (succeeds) {
        await run;
        // The first request already carries it: no 401 challenge, no credential helper.
        expect(fx.handler.requests[0]?.authorized).toBe(true);
        const config = await runGit(['config', '--local', '--list'], { cwd: path.join(dir, 'out') });
        expect(config.stdout).not.toContain(fx.token);
        expect(config.stdout).not.toContain(authorization.slice(6));
      } else {
        await expect(run).rejects.toThrow(GitError);
        expect(fx.handler.requests.some((r) => r.authorized)).toBe(false);
      }
    },
  );
});

describe('runGit: a Bearer token (Bitbucket Data Center)', () => {
  it('clones with Authorization: Bearer from the environment, scoped to the clone origin, never in .git/config', async () => {
    const fx = await startGitFixture({ scheme: 'bearer' });
    try {
      const url = await fx.createRepo('acme/widgets', { 'a.txt': 'a\n' });
      const credentials = { username: '', password: '', authorization: `Bearer ${fx.token}` };
      await runGit(['clone', '--quiet', '--', url, 'out'], { cwd: dir, credentials, credentialUrl: url });
      expect(fx.handler.requests.every((r) => r.authorized)).toBe(true);
      const config = await readFile(path.join(dir, 'out', '.git', 'config'), 'utf8');
      expect(config).not.toContain(fx.token);
      // Scoped to another origin, the header is not sent.
      const other = runGit(['clone', '--quiet', '--', url, 'out2'], {
        cwd: dir,
        credentials,
        credentialUrl: 'http://127.0.0.1:1',
      });
      await expect(other).rejects.toThrow(GitError);
      await expect(other).rejects.not.toThrow(fx.token);
    } finally {
      await fx.close();
    }
  });
});

describe('runGit: failures', () => {
  let server: Server;
  let url: string;
  const sockets: Socket[] = [];
  beforeEach(async () => {
    // Accepts connections and never answers: git hangs until killed.
    server = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acme/widgets.git`;
  });
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('kills git after the time limit', async () => {
    const started = Date.now();
    await expect(runGit(['clone', '--', url, 'out'], { cwd: dir, timeoutMs: 300 })).rejects.toThrow(
      /^git clone timed out after 300 ms$/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    // The whole process group died: the helper process holding the connection closed it.
    expect(sockets.length).toBeGreaterThan(0);
    await Promise.all(
      sockets.map((socket) =>
        socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)),
      ),
    );
  });

  it('kills git when aborted, and refuses to start when already aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(
      runGit(['clone', '--', url, 'out'], { cwd: dir, signal: controller.signal }),
    ).rejects.toThrow(/^git clone aborted$/);
    await expect(runGit(['status'], { cwd: dir, signal: controller.signal })).rejects.toThrow(/aborted/);
  });

  it('names the subcommand and exit code, with git’s message', async () => {
    const error = await runGit(['rev-parse', '--verify', 'nope'], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(
      /^git rev-parse failed \(exit code 128\): fatal: not a git repository/,
    );
  });

  it('reports a working directory that does not exist', async () => {
    await expect(runGit(['status'], { cwd: path.join(dir, 'missing') })).rejects.toThrow(
      /git status could not start/,
    );
  });
});

describe('URL and branch checks', () => {
  it.each([
    ['https://github.com/acme/widgets.git', true],
    ['http://127.0.0.1:8080/g/p.git', true],
    ['https://x-access-token:ghs_abc@github.com/acme/widgets.git', false],
    ['https://user@github.com/acme/widgets.git', false],
    ['ssh://git@github.com/acme/widgets.git', false],
    ['file:///srv/repo.git', false],
    ['/srv/repo.git', false],
  ])('clone URL %s accepted = %s', (url, ok) => {
    if (ok) expect(() => assertSafeCloneUrl(url)).not.toThrow();
    else expect(() => assertSafeCloneUrl(url)).toThrow(GitError);
  });

  it('never repeats the credentials of a refused URL', () => {
    expect(() => assertSafeCloneUrl('https://u:ghs_secretvalue@github.com/a/b.git')).toThrow(
      /^refusing a clone URL that contains credentials \(https:\/\/\*\*\*@github\.com\)/,
    );
  });

  it.each([
    ['main', true],
    ['feature/x-1', true],
    ['release/v1.2', true],
    ['', false],
    ['-upload-pack=evil', false],
    ['a..b', false],
    ['a b', false],
    ['a:b', false],
    ['x.lock', false],
    ['trailing/', false],
    ['a@{1}', false],
  ])('branch %j accepted = %s', (branch, ok) => {
    if (ok) expect(() => assertBranchName(branch)).not.toThrow();
    else expect(() => assertBranchName(branch)).toThrow(GitError);
  });
});
