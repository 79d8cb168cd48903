/**
 * The host side of the sandbox's network policy (CONTRACT §16): an HTTP proxy listening on a Unix
 * socket (bound into the sandbox) that forwards HTTP CONNECT tunnels and plain-HTTP requests only to
 * the hosts of `agent.sandbox_network`, and answers 403 (logged) to everything else.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../../logger.js';

/** File name of the proxy socket inside its directory. */
export const PROXY_SOCKET_NAME = 'proxy.sock';

/**
 * True when `host:port` is allowed by `allowed` (entries `host` allow every port, `host:port` only
 * that port; host names compare case-insensitively, without a trailing dot).
 */
export function isHostAllowed(allowed: readonly string[], host: string, port: number): boolean {
  const wanted = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
  for (const entry of allowed) {
    const match = /^(.*?)(?::(\d{1,5}))?$/.exec(entry.trim().toLowerCase());
    if (!match) continue;
    const [, name, entryPort] = match;
    if (name?.replace(/\.$/, '') === wanted && (entryPort === undefined || Number(entryPort) === port)) {
      return true;
    }
  }
  return false;
}

/** A running proxy: `dir` holds its socket; `close` stops it and removes `dir`. */
export interface NetworkProxy {
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts the allowlisting proxy on a fresh Unix socket. Blocked attempts are logged at warn level
 * (`sandbox network: blocked`) with the host and port, and answered with 403.
 */
export async function startNetworkProxy(allowed: readonly string[], logger?: Logger): Promise<NetworkProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'reviewbot-proxy-'));
  const sockets = new Set<net.Socket>();
  const blocked = (host: string, port: number, method: string) => {
    logger?.warn(
      { host, port, method },
      'sandbox network: blocked a connection to a host not in agent.sandbox_network',
    );
  };
  const server = http.createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request URL required\n');
      return;
    }
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
    if (target.protocol !== 'http:' || !isHostAllowed(allowed, target.hostname, port)) {
      blocked(target.hostname, port, req.method ?? 'GET');
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(`reviewbot sandbox: ${target.hostname} is not in agent.sandbox_network\n`);
      return;
    }
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('upstream connection failed\n');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    const host = match?.[1]?.replace(/^\[(.*)\]$/, '$1') ?? '';
    const port = Number(match?.[2] ?? 0);
    if (!match || !isHostAllowed(allowed, host, port)) {
      blocked(host || (req.url ?? ''), port, 'CONNECT');
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    });
    client.on('error', drop);
    client.on('close', () => upstream.destroy());
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path.join(dir, PROXY_SOCKET_NAME), () => resolve());
  });
  return {
    dir,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Source of the forwarder run inside the sandbox (`node -e`): listens on 127.0.0.1:`port`, pipes
 * every connection to the proxy socket, starts the command (argv after the port) once listening,
 * and exits with its status. Arguments: socket path, port, command argv.
 */
export const FORWARDER_SOURCE = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socketPath, port, file, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const drop = () => { client.destroy(); upstream.destroy(); };
  client.on('error', drop); upstream.on('error', drop);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(file, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
  child.on('error', () => process.exit(127));
});
`;
