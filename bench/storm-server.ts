/**
 * The server side of `bench:webhook-storm`: `reviewbot serve` as a child process with GitHub and
 * GitLab enabled against fresh fakes (and a fake Anthropic API), and a sender that plays shots at it
 * over keep-alive connections (slow senders in pieces, declared-only bodies as headers).
 */
import { Agent, request } from 'node:http';
import path from 'node:path';
import { startFakeGitHub } from '../test/support/fake-github/index.js';
import { startFakeGitLab } from '../test/support/fake-gitlab/index.js';
import { startFakeAnthropic } from '../test/support/fake-llm/index.js';
import { startServe, type ServeProcess } from '../test/support/serve-process.js';
import { STORM_SECRETS, type Shot } from './webhook-storm-mix.js';

const SECRET = STORM_SECRETS.github;
const GL_SECRET = STORM_SECRETS.gitlab;
const TOKEN = 'ghp_stormToken00000000000000000000';
const GL_TOKEN = 'glpat-storm-token-000000000000';
const KEY = 'sk-storm-0000000000';

/** Sends one shot; resolves with the answer's status (-1 when the connection failed first). */
function send(agent: Agent, base: string, shot: Shot): Promise<number> {
  return new Promise((resolve) => {
    const length = shot.declaredLength ?? shot.body.length;
    const req = request(
      `${base}/webhooks/${shot.platform}`,
      { method: 'POST', agent, headers: { ...shot.headers, 'content-length': String(length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    // The server may close a connection it answered early (413): that is an answer, not an error.
    req.on('error', () => resolve(-1));
    if (shot.declaredLength !== undefined) {
      req.flushHeaders();
      return;
    }
    if (!shot.slowPieces) {
      req.end(shot.body);
      return;
    }
    const size = Math.ceil(shot.body.length / shot.slowPieces);
    let offset = 0;
    const timer = setInterval(() => {
      const piece = shot.body.subarray(offset, offset + size);
      offset += size;
      if (offset >= shot.body.length) {
        clearInterval(timer);
        req.end(piece);
      } else req.write(piece);
    }, 50);
  });
}

/** A server under test with its fakes. */
export interface StormServer {
  server: ServeProcess;
  githubFake: Awaited<ReturnType<typeof startFakeGitHub>>;
  gitlabFake: Awaited<ReturnType<typeof startFakeGitLab>>;
  llm: Awaited<ReturnType<typeof startFakeAnthropic>>;
  close(): Promise<void>;
}

/** Starts fresh fakes and a server (`cli` = the executable, default the built CLI with its shebang). */
export async function startStormServer(root: string, cli?: string): Promise<StormServer> {
  const githubFake = await startFakeGitHub({ token: TOKEN });
  const gitlabFake = await startFakeGitLab({ token: GL_TOKEN });
  const llm = await startFakeAnthropic({
    apiKey: KEY,
    script: () => ({ text: JSON.stringify({ summary: 'ok', comments: [] }) }),
  });
  const server = await startServe(
    {
      CODEHOST_TOKEN: TOKEN,
      CODEHOST_API_URL: githubFake.url,
      CODEHOST_WEBHOOK_SECRET: SECRET,
      GITLAB_TOKEN: GL_TOKEN,
      GITLAB_URL: gitlabFake.url,
      GITLAB_WEBHOOK_SECRET: GL_SECRET,
      REVIEWER_BOT_USERNAME: 'review-bot',
      ALLOWED_USERS: 'alice',
      AGENT_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: llm.url,
      WORKSPACE_BASE_DIR: path.join(root, 'ws'),
      CLEANUP_INTERVAL_HOURS: '0',
      HOME: root,
    },
    60_000,
    cli,
  );
  return {
    server,
    githubFake,
    gitlabFake,
    llm,
    async close() {
      await server.stop('SIGKILL');
      await llm.close();
      await githubFake.close();
      await gitlabFake.close();
    },
  };
}

/** Sends `shots` over `concurrency` keep-alive connections; `onAnswer` gets each status and latency (ms). */
export async function sendAll(
  base: string,
  shots: readonly Shot[],
  concurrency: number,
  onAnswer: (shot: Shot, status: number, ms: number) => void = () => undefined,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < shots.length) {
        const shot = shots[next++]!;
        const sent = performance.now();
        const status = await send(agent, base, shot);
        onAnswer(shot, status, performance.now() - sent);
      }
    }),
  );
  agent.destroy();
}
