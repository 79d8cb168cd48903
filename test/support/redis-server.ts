/**
 * A real `redis-server` for tests: spawned from PATH on a free loopback port (never 6379, never the
 * machine's own Redis) with its own temp directory. `persistent` turns on the append-only file with
 * `appendfsync always`, so `restart()` and even `kill()` + `restart()` keep every acknowledged write
 * (tests of "Redis restarted mid-run").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Options of `startRedis`. */
export interface StartRedisOptions {
  /** `appendonly yes` + `appendfsync always`: data survives `restart()` and `kill()`. Default false. */
  persistent?: boolean;
}

/** A running test Redis. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>/0`. */
  url: string;
  port: number;
  /** The server's own temp directory (config, append-only file). */
  dir: string;
  /** Shuts the server down (SIGTERM, SIGKILL after 5 s) and removes `dir`. Idempotent. */
  stop(): Promise<void>;
  /**
   * Shuts the server down gracefully if it runs, then starts it again on the same port and
   * directory; resolves when it answers PING (after loading its data).
   */
  restart(): Promise<void>;
  /** SIGKILLs the server (no shutdown work); `restart()` brings it back. */
  kill(): Promise<void>;
}

/** Longest wait for the server to answer PING, ms. */
const READY_TIMEOUT_MS = 10_000;
/** Servers still running, killed if the test process exits without stopping them. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts a `redis-server` (must be on PATH) on a free port.
 * @throws Error when the binary is missing or the server does not answer within 10 s (with its output).
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'reviewbot-redis-'));
  const port = await freePort();
  const config = [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${dir}`,
    'save ""',
    `appendonly ${options.persistent ? 'yes' : 'no'}`,
    'appendfsync always',
    'daemonize no',
    'loglevel warning',
    '',
  ].join('\n');
  const configFile = join(dir, 'redis.conf');
  await writeFile(configFile, config);

  let child: ChildProcess | undefined;
  let output = '';

  async function launch(): Promise<void> {
    output = '';
    const started = spawn('redis-server', [configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    live.add(started);
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    started.stdout?.on('data', append);
    started.stderr?.on('data', append);
    let spawnError: Error | undefined;
    started.once('error', (error) => {
      spawnError = error;
    });
    started.once('exit', () => live.delete(started));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (spawnError) throw new Error(`cannot start redis-server: ${spawnError.message}`);
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`redis-server exited during start-up:\n${output}`);
      }
      if (await answersPing(port)) return;
      await sleep(20);
    }
    started.kill('SIGKILL');
    throw new Error(
      `redis-server did not answer PING on port ${port} within ${READY_TIMEOUT_MS} ms:\n${output}`,
    );
  }

  async function terminate(signal: NodeJS.Signals): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  await launch();
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      if (stopped) throw new Error('redis server was stopped');
      await terminate('SIGTERM');
      await launch();
    },
    async kill() {
      await terminate('SIGKILL');
    },
  };
}

/** A free loopback port other than 6379 (the machine's own Redis). */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const found = typeof address === 'object' && address !== null ? address.port : 0;
        server.close(() => resolve(found));
      });
    });
    if (port !== 0 && port !== 6379) return port;
  }
}

/** True when a server on `port` answers `PING` with `+PONG` (not `-LOADING` while it loads data). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
