/**
 * The sandbox's network policy (CONTRACT §16) through WORKER Bash: no network by default; with
 * `agent.sandbox_network` a named host is reachable through the host-side proxy (plain HTTP and
 * CONNECT) and every other host is refused and logged.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { SecretMasker } from '../../secrets.js';
import { callTool } from '../tools/call-tool.js';
import { buildTools, WORKER_TOOLS } from '../tools/index.js';
import { probeSandbox } from './detect.js';
import type { ToolSandbox } from './types.js';

const status = await probeSandbox('auto');

/** Requests from inside the sandbox: direct, through the proxy (absolute-form), and CONNECT. */
const CLIENT = `
import http from 'node:http';
import net from 'node:net';
const [mode, target] = process.argv.slice(2);
const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
const out = (text) => console.log(mode + ' ' + target + ' ' + text);
if (mode === 'direct') {
  fetch('http://' + target + '/hello').then(async (r) => out('REACHED ' + r.status + ' ' + (await r.text())), (e) => out('BLOCKED ' + (e.cause?.code ?? e.message)));
} else if (!proxy) {
  out('NO-PROXY');
} else if (mode === 'proxy') {
  http.get({ host: proxy.hostname, port: proxy.port, path: 'http://' + target + '/hello' }, (res) => {
    let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => out('STATUS ' + res.statusCode + ' ' + body.trim()));
  }).on('error', (e) => out('ERROR ' + e.code));
} else {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target });
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) { out('STATUS ' + res.statusCode); socket.destroy(); return; }
    socket.write('GET /hello HTTP/1.1\\r\\nHost: ' + target + '\\r\\nConnection: close\\r\\n\\r\\n');
    let body = ''; socket.on('data', (d) => (body += d)); socket.on('end', () => out('TUNNEL ' + body.split('\\r\\n')[0] + ' ' + body.split('\\r\\n\\r\\n')[1]?.trim()));
  });
  req.on('error', (e) => out('ERROR ' + e.code));
  req.end();
}
`;

let base: string;
let root: string;
let server: http.Server;
let port: number;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'sandbox-network-')));
  root = path.join(base, 'ws');
  mkdirSync(root);
  mkdirSync(path.join(base, 'home'));
  writeFileSync(path.join(root, 'client.mjs'), CLIENT);
  server = http.createServer((_req, res) => res.end('hello from the host'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(base, { recursive: true, force: true });
});

function bash(sandbox: ToolSandbox) {
  const tools = buildTools(WORKER_TOOLS, {
    rootReal: root,
    homeDir: path.join(base, 'home'),
    masker: new SecretMasker(),
    onSubmit: () => {},
    sandbox,
  });
  return async (mode: string, target: string) =>
    (
      await callTool(tools, 'Bash', { command: `node client.mjs ${mode} ${target}`, timeout: 20_000 })
    ).output.trim();
}

function logger() {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n'))
        if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return createLogger({ destination: sink, masker: new SecretMasker(), level: 'info' });
}

describe.runIf(status.kind === 'bwrap')('sandbox network policy', () => {
  it('has no network by default: the host is unreachable and no proxy is offered', async () => {
    const run = bash({ status, networkHosts: [] });
    expect(await run('direct', `127.0.0.1:${port}`)).toMatch(/^direct \S+ BLOCKED/);
    expect(await run('proxy', `localhost:${port}`)).toBe(`proxy localhost:${port} NO-PROXY`);
  });

  it('reaches an allowlisted host through the proxy (HTTP and CONNECT), and only that host', async () => {
    const run = bash({ status, networkHosts: ['localhost'], logger: logger() });
    expect(await run('proxy', `localhost:${port}`)).toBe(
      `proxy localhost:${port} STATUS 200 hello from the host`,
    );
    expect(await run('connect', `localhost:${port}`)).toBe(
      `connect localhost:${port} TUNNEL HTTP/1.1 200 OK hello from the host`,
    );
    // The same server under another name is not on the list; nor is a direct connection possible.
    expect(await run('proxy', `127.0.0.1:${port}`)).toMatch(
      new RegExp(`^proxy 127.0.0.1:${port} STATUS 403 `),
    );
    expect(await run('connect', `127.0.0.1:${port}`)).toBe(`connect 127.0.0.1:${port} STATUS 403`);
    expect(await run('direct', `localhost:${port}`)).toMatch(/BLOCKED/);
    const blocked = logLines.filter((l) => String(l.msg).startsWith('sandbox network: blocked'));
    expect(blocked.map((l) => [l.host, l.port, l.method])).toEqual([
      ['127.0.0.1', port, 'GET'],
      ['127.0.0.1', port, 'CONNECT'],
    ]);
  });

  it('honours a port in the allowlist entry', async () => {
    const run = bash({ status, networkHosts: [`localhost:${port + 1}`] });
    expect(await run('proxy', `localhost:${port}`)).toMatch(/STATUS 403/);
  });
});

describe.runIf(status.kind !== 'bwrap')('without a working sandbox', () => {
  it('refuses Bash, so no network request is ever made from a tool command', async () => {
    const run = bash({ status, networkHosts: ['localhost'] });
    expect(await run('direct', `localhost:${port}`)).toMatch(/^Bash is unavailable/);
  });
});
