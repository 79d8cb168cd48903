/**
 * End to end: what a new user meets in the first minutes, through the built CLI as a child process.
 * - An old Node.js gets one line naming the version needed.
 * - `serve --help` names the webhook paths and the variables `serve` needs.
 * - A keyless try-out: `review --local` against a local OpenAI-compatible server that asks for no
 *   key (as Ollama and vLLM do), with no platform token either.
 * - Human output: at the default level stderr holds progress lines and one `reviewbot:` line per
 *   problem, never a JSON log line; JSON lines come with `LOG_FORMAT=json`, `LOG_LEVEL` or `--verbose`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeLlm } from '../support/fake-llm/index.js';
import { CLI_PATH, runCli } from '../support/run-cli.js';
import { createLocalRepo, LOCAL, type LocalRepo } from './local-fixture.js';

const PLATFORMS = ['github', 'gitlab', 'gitea', 'bitbucket', 'bitbucket-server', 'azure-devops'];
const KEY = 'sk-local-server-key-never-shown-4242';

/** Lines of `text` that parse as a JSON object (pino's log lines). */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('reviewbot on a Node.js older than it needs', () => {
  it('says so in one line, before loading anything else (exit 1)', async () => {
    // The Node.js running the test claims to be 20.11.1 before the bin starts.
    const claim20 = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.1"})`;
    const result = await runCli(
      ['review', '--local'],
      {},
      {
        command: [process.execPath, '--import', claim20, CLI_PATH],
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'reviewbot: Node.js 22.19.0 or newer is required, this is 20.11.1: install Node 22 ' +
        '(e.g. `nvm install 22`) or run reviewbot with `npx -y node@22`\n',
    );
  });
});

describe('reviewbot serve --help', () => {
  it('lists the port, every webhook path with its variables, and what serve needs', async () => {
    const result = await runCli(['serve', '--help'], {});
    expect(result.code).toBe(0);
    const help = result.stdout;
    expect(help).toContain('WEBHOOK_PORT (default 0.0.0.0:8080)');
    for (const platform of PLATFORMS) expect(help).toMatch(new RegExp(`^  /webhooks/${platform} `, 'm'));
    for (const variable of [
      'CODEHOST_TOKEN',
      'CODEHOST_WEBHOOK_SECRET',
      'GITLAB_WEBHOOK_SECRET',
      'GITEA_URL',
      'BITBUCKET_WEBHOOK_SECRET',
      'BITBUCKET_SERVER_URL',
      'AZURE_DEVOPS_WEBHOOK_USER',
      'REVIEWER_BOT_USERNAME',
      'ALLOWED_USERS',
      'AGENT_PROVIDER',
      'CLAUDE_CODE_OAUTH_TOKEN',
    ]) {
      expect(help).toContain(variable);
    }
    expect(help).toContain('GET /health');
  });
});

describe('reviewbot review --local with a local model server and no key', () => {
  let repo: LocalRepo;
  let keyless: FakeLlm;
  let keyed: FakeLlm;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    repo = createLocalRepo();
    keyless = await startFakeOpenAI({ apiKey: null });
    keyed = await startFakeOpenAI({ apiKey: KEY });
    // What the README's try-out sets: a provider, a URL and a model; no key, no platform token.
    env = {
      AGENT_PROVIDER: 'openai-compatible',
      AGENT_BASE_URL: `${keyless.url}/v1`,
      AGENT_MODEL: 'qwen3-coder',
      WORKSPACE_BASE_DIR: `${repo.root}/workspaces`,
      HOME: repo.root,
    };
  });
  afterAll(async () => {
    await keyless?.close();
    await keyed?.close();
    if (repo) rmSync(repo.root, { recursive: true, force: true });
  });

  it('reviews the changes, sends no Authorization header, and prints no JSON log line', async () => {
    keyless.setScript([
      {
        toolCalls: [
          {
            name: 'submit_review',
            input: {
              summary: 'Reviewed by a local model.',
              comments: [
                { path: LOCAL.committed.path, line: LOCAL.committed.line, side: 'RIGHT', body: 'Why 500?' },
              ],
            },
          },
        ],
      },
    ]);
    const result = await runCli(['review', '--local'], env, { cwd: repo.dir });
    expect(result.stderr).not.toMatch(/^reviewbot: (?!warning: the cost cap)/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Reviewed by a local model.');
    expect(result.stdout).toContain(`${LOCAL.committed.path}:${LOCAL.committed.line} (RIGHT)`);
    expect(result.stdout).toContain('Not posted (--local).');
    expect(keyless.requests.length).toBeGreaterThan(0);
    for (const request of keyless.requests) {
      expect(request.model).toBe('qwen3-coder');
      expect(request.headers.authorization).toBeUndefined();
    }
    expect(result.stderr).toMatch(/^\[ *[0-9.]+s\] running the agent$/m);
    expect(jsonLines(result.stderr)).toEqual([]);
  });

  it('says a model error once, as one reviewbot: line, with no JSON log line (exit 1)', async () => {
    const wrongKey = { ...env, AGENT_BASE_URL: `${keyed.url}/v1`, AGENT_API_KEY: 'sk-wrong-key-0000000000' };
    const result = await runCli(['review', '--local'], wrongKey, { cwd: repo.dir });
    expect(result.code).toBe(1);
    expect(keyed.requests.at(-1)?.status).toBe(401);
    const problems = result.stderr.split('\n').filter((line) => line.includes('LLM provider'));
    expect(problems).toEqual([expect.stringMatching(/^reviewbot: .*LLM provider openai-compatible.*401/)]);
    expect(jsonLines(result.stderr)).toEqual([]);
    expect(result.stderr).toMatch(/^\[ *[0-9.]+s\] running the agent$/m);
    expect(result.stderr).not.toContain('sk-wrong-key-0000000000');
  });

  it.each([
    ['LOG_FORMAT=json LOG_LEVEL=info', { LOG_FORMAT: 'json', LOG_LEVEL: 'info' }, [], 30],
    ['LOG_LEVEL=debug', { LOG_LEVEL: 'debug' }, [], 20],
    ['--verbose', {}, ['--verbose'], 20],
  ])('%s: logs are JSON lines on stderr, at that level', async (_name, extraEnv, flags, lowest) => {
    const wrongKey = {
      ...env,
      AGENT_BASE_URL: `${keyed.url}/v1`,
      AGENT_API_KEY: 'sk-wrong-key-0000000000',
      ...extraEnv,
    };
    const result = await runCli(['review', '--local', ...flags], wrongKey, { cwd: repo.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^reviewbot: .*LLM provider openai-compatible.*401/m);
    const lines = jsonLines(result.stderr);
    expect(lines.length).toBeGreaterThan(0);
    expect(Math.min(...lines.map((line) => line.level as number))).toBe(lowest);
    expect(lines.some((line) => line.msg === 'review plan')).toBe(true);
    expect(result.stderr).not.toContain('sk-wrong-key-0000000000');
  });

  it('warns when ./reviewbot.yaml holds repository rules that belong in .reviewbot.yaml, and still reviews', async () => {
    const file = path.join(repo.dir, 'reviewbot.yaml');
    writeFileSync(file, 'review:\n  instructions: Amounts are integer cents.\n');
    try {
      keyless.setScript([
        { toolCalls: [{ name: 'submit_review', input: { summary: 'Fine.', comments: [] } }] },
      ]);
      const result = await runCli(['review', '--local'], env, { cwd: repo.dir });
      expect(result.code).toBe(0);
      const warnings = result.stderr.split('\n').filter((line) => line.includes('reviewbot.yaml'));
      expect(warnings).toEqual([
        expect.stringMatching(
          /^reviewbot: warning: \.\/reviewbot\.yaml sets review\.instructions: .*belong in \.reviewbot\.yaml \(with a leading dot\)/,
        ),
      ]);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
