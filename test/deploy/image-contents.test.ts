/**
 * What a single-provider image holds, assembled the way the Dockerfile's stages assemble it (there
 * is no Docker engine in tests): the deps stage's production install (`npm ci --omit=dev
 * --omit=optional`, from the local npm cache when it can) and its prune step for one provider, the
 * build stage's `dist/src`, and the final stage's `reviewbot` wrapper. Checks that every module
 * `dist/src` imports — at load time or on demand — is in the image, and that the image's
 * `reviewbot` starts the server and refuses another provider with a message naming its package.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerPackage } from '../../src/agent/providers.js';
import { freePort, startServe } from '../support/serve-process.js';
import { pruneCommand, ROOT, singleProviderInstallArgs, stages } from './dockerfile.js';

const PROVIDER = 'anthropic';
const run = promisify(execFile);
let root: string;
let app: string;
let wrapper: string;

/** Every file under `dir` whose name ends with `.js`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Bare package specifiers (not relative, not `node:`) that `source` imports, statically or with `import('…')`. */
function bareImports(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
    const specifier = match[1] ?? '';
    if (!specifier.startsWith('.') && !specifier.startsWith('node:')) found.add(specifier);
  }
  return [...found];
}

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'reviewbot-image-'));
  app = path.join(root, 'app');
  for (const file of ['package.json', 'package-lock.json']) {
    cpSync(path.join(ROOT, file), path.join(app, file));
  }
  await run('npm', ['ci', ...singleProviderInstallArgs(), '--prefer-offline'], { cwd: app });
  execFileSync('sh', ['-c', pruneCommand()], { cwd: app, env: { PATH: process.env.PATH, PROVIDER } });
  cpSync(path.join(ROOT, 'dist/src'), path.join(app, 'dist/src'), { recursive: true });
  // The final stage's wrapper, written by its own `printf` with /app and /usr/local/bin moved here.
  const printf = (stages[2] ?? '').split('\n').find((line) => line.includes('/usr/local/bin/reviewbot'));
  wrapper = path.join(root, 'reviewbot');
  const script = (printf ?? '')
    .replace(/^RUN /, '')
    .replace(/\s*&&\s*chmod.*$/, '')
    .replaceAll('/app/', `${app}/`)
    .replaceAll('/usr/local/bin/reviewbot', wrapper);
  execFileSync('sh', ['-c', script]);
  execFileSync('chmod', ['0755', wrapper]);
}, 180_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe(`the ${PROVIDER} image's contents`, () => {
  it('hold every package dist/src imports, except the other providers’ SDKs it loads only on demand', () => {
    const absent = new Set(
      (['openai', 'google', 'deepseek'] as const).map((provider) => providerPackage(provider)),
    );
    const probe = path.join(app, 'dist/src/resolve-probe.mjs');
    const specifiers = [
      ...new Set(
        jsFiles(path.join(app, 'dist/src')).flatMap((file) => bareImports(readFileSync(file, 'utf8'))),
      ),
    ];
    expect(specifiers).toEqual(
      expect.arrayContaining(['ioredis', '@kubernetes/client-node', providerPackage(PROVIDER)]),
    );
    writeFileSync(
      probe,
      `for (const s of ${JSON.stringify(specifiers)}) { try { import.meta.resolve(s); } catch { console.log(s); } }\n`,
    );
    const missing = execFileSync(process.execPath, [probe], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(missing.sort()).toEqual([...absent].sort());
  });

  it('start the server through the image’s `reviewbot` wrapper', async () => {
    const server = await startServe(
      {
        HOME: root,
        NODE_ENV: 'production',
        CODEHOST_TOKEN: 'ghp_image_test',
        CODEHOST_API_URL: 'http://127.0.0.1:9',
        CODEHOST_WEBHOOK_SECRET: 'image-test-secret',
        REVIEWER_BOT_USERNAME: 'review-bot',
        AGENT_PROVIDER: PROVIDER,
        ANTHROPIC_API_KEY: 'sk-ant-image-test',
        WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
      },
      20_000,
      wrapper,
    );
    try {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuse another provider at start-up, naming the package the image lacks', async () => {
    const result = await run(wrapper, ['serve'], {
      env: {
        PATH: process.env.PATH,
        HOME: root,
        CODEHOST_TOKEN: 'ghp_image_test',
        CODEHOST_WEBHOOK_SECRET: 'image-test-secret',
        REVIEWER_BOT_USERNAME: 'review-bot',
        AGENT_PROVIDER: 'openai',
        OPENAI_API_KEY: 'sk-image-test',
        WORKSPACE_BASE_DIR: path.join(root, 'workspaces'),
        WEBHOOK_PORT: String(await freePort()),
      },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string; stdout: string }) => ({
        code: error.code,
        stderr: `${error.stderr}${error.stdout}`,
      }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(providerPackage('openai'));
  });
});
