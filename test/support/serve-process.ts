/**
 * Runs `reviewbot serve` (the built CLI) as a child process on a free port, collects its JSON log
 * lines, and sends it signed webhooks over real HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { CLI_PATH } from './run-cli.js';
import { signGitHubWebhook } from './webhook-signing.js';

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One pino log line of the server. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

/** A running server process. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  logs: LogLine[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first log line matching `predicate` (rejects after `timeoutMs`). */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Starts `reviewbot serve` with exactly `env` (plus PATH and `WEBHOOK_PORT=0`: the server picks a
 * free port) and waits until it listens; `url` is where it listens. `cli` is the executable to run (default: the built CLI).
 */
export async function startServe(
  env: NodeJS.ProcessEnv,
  timeoutMs = 20_000,
  cli = CLI_PATH,
): Promise<ServeProcess> {
  // Port 0: the server binds a free port itself and names it in its "listening" line (a port asked
  // from the kernel and released first can be taken by another test in between).
  // Executed as the `reviewbot` bin is (its shebang carries the server's V8 flags), with this
  // process's Node first on PATH.
  const child = spawn(cli, ['serve'], {
    env: {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      WEBHOOK_HOST: '127.0.0.1',
      WEBHOOK_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let partial = '';
  const logs: LogLine[] = [];
  const waiters: Array<{ predicate: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      if (!text.trim()) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { msg: text, unparsed: true };
      }
      logs.push(line);
      for (const w of [...waiters]) {
        if (w.predicate(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  function waitForLog(predicate: (line: LogLine) => boolean, wait = 15_000): Promise<LogLine> {
    const seen = logs.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no matching log line within ${wait} ms; stderr: ${err}; stdout: ${out.slice(-3000)}`),
          ),
        wait,
      );
      waiters.push({
        predicate,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  const listening = waitForLog((l) => l.msg === 'reviewbot serve listening', timeoutMs);
  const early = exited.then((code) => {
    throw new Error(`reviewbot serve exited with ${code} before listening: ${err}`);
  });
  const line = await Promise.race([listening, early]);
  early.catch(() => undefined);
  const port = Number(line.port);
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    logs,
    stdout: () => out,
    stderr: () => err,
    waitForLog,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    exited,
  };
}

let delivery = 0;

/** Sends a GitHub webhook; `secret` undefined sends it unsigned. Returns status, JSON body and ack latency (ms). */
export async function sendGitHubWebhook(
  url: string,
  event: string,
  payload: unknown,
  options: { secret?: string; deliveryId?: string; body?: string | Buffer } = {},
): Promise<{ status: number; json: Record<string, unknown>; ms: number }> {
  const body = options.body ?? JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': options.deliveryId ?? `delivery-${process.pid}-${Date.now()}-${delivery++}`,
    'user-agent': 'GitHub-Hookshot/test',
  };
  if (options.secret !== undefined) headers['x-hub-signature-256'] = signGitHubWebhook(options.secret, body);
  const started = performance.now();
  const res = await fetch(`${url}/webhooks/github`, { method: 'POST', headers, body });
  const text = await res.text();
  const ms = performance.now() - started;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json, ms };
}

/**
 * POSTs `body` with node:http and resolves with the response status as soon as it arrives — also
 * when the server answers early (e.g. 413) and closes the connection while the body is still being
 * written, as a real webhook sender would see it.
 */
export function postRaw(url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        settled = true;
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (error) => {
      if (!settled) setTimeout(() => (settled ? undefined : reject(error)), 2000);
    });
    req.end(body);
  });
}
