/**
 * The Dockerfile and the publishing workflow, checked as text (no Docker engine in tests): base
 * image, provider build argument, non-root user, entrypoint, and the tags CI publishes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROVIDER_IDS, providerPackage, type ProviderId } from '../../src/agent/providers.js';
import { instructions, pruneCommand, ROOT, stages } from './dockerfile.js';

const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

describe('Dockerfile', () => {
  it('builds every stage on the official Node 22 slim image', () => {
    expect(instructions).toContain('ARG NODE_IMAGE=node:22-slim');
    expect(stages).toHaveLength(3);
    for (const stage of stages) expect(stage.startsWith('${NODE_IMAGE}')).toBe(true);
  });

  it('keeps the optional code-agent SDK only for PROVIDER=all', () => {
    const deps = stages[1] ?? '';
    expect(deps).toMatch(/^ARG PROVIDER=all$/m);
    const [allBranch, singleBranch] = deps.split(/\belse\b/);
    expect(allBranch).toMatch(/"\$PROVIDER" = "all"/);
    expect(allBranch).toMatch(/npm ci --omit=dev/);
    expect(allBranch).not.toMatch(/--omit=optional/);
    expect(singleBranch).toMatch(/npm ci --omit=dev --omit=optional/);
  });

  it('keeps only the chosen provider’s AI SDK package in a single-provider image', () => {
    const prune = pruneCommand();
    const packages = ['anthropic', 'openai', 'google', 'openai-compatible'];
    // The package reviewbot loads for the provider (`providerPackage`) is the one kept.
    const expected = (provider: 'all' | ProviderId): string[] =>
      provider === 'all' ? packages : [providerPackage(provider).replace('@ai-sdk/', '')];
    for (const provider of ['all' as const, ...PROVIDER_IDS]) {
      const dir = mkdtempSync(path.join(tmpdir(), 'reviewbot-prune-'));
      try {
        for (const name of [...packages, 'provider', 'provider-utils']) {
          mkdirSync(path.join(dir, 'node_modules/@ai-sdk', name), { recursive: true });
        }
        execFileSync('sh', ['-c', prune], {
          cwd: dir,
          env: { PATH: process.env.PATH, PROVIDER: provider },
        });
        const left = readdirSync(path.join(dir, 'node_modules/@ai-sdk')).sort();
        expect(left, provider).toEqual([...expected(provider), 'provider', 'provider-utils'].sort());
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    expect(() =>
      execFileSync('sh', ['-c', prune], {
        env: { PATH: process.env.PATH, PROVIDER: 'acme' },
        stdio: 'pipe',
      }),
    ).toThrow(/unknown PROVIDER=acme/);
  });

  it('installs git and CA certificates, runs as uid 1000 and enters through reviewbot on PATH', () => {
    const final = stages[2] ?? '';
    expect(final).toMatch(/apt-get install -y --no-install-recommends git ca-certificates bubblewrap/);
    expect(final).toMatch(/^USER 1000:1000$/m);
    expect(final).toMatch(/^ENTRYPOINT \["reviewbot"\]$/m);
    const bin = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: { reviewbot: string } }
    ).bin.reviewbot;
    // The wrapper passes the Node flags of the CLI's shebang
    // (`#!/usr/bin/env -S [NAME=VALUE ...] node <flags>`); the image sets its variables with ENV.
    const shebang = readFileSync(path.join(ROOT, 'src/cli/index.ts'), 'utf8').split('\n')[0] ?? '';
    const parts = /^#!\/usr\/bin\/env -S ((?:\S+=\S+ )*)node(.*)$/.exec(shebang);
    const flags = parts?.[2] ?? ' <no shebang>';
    expect(final).toContain(`exec node${flags} /app/${bin} "$@"`);
    for (const assignment of (parts?.[1] ?? '').trim().split(' ').filter(Boolean)) {
      expect(final).toMatch(new RegExp(`^ENV ${assignment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    }
    expect(final).toContain('> /usr/local/bin/reviewbot');
    expect(final).toContain('COPY --from=build /app/dist/src ./dist/src');
  });

  it('copies only files that exist and that .dockerignore lets through', () => {
    const sources = instructions
      .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(sources).toEqual([
      ...['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src'],
      ...['package.json', 'package-lock.json'],
      'package.json',
    ]);
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', 'dist', '.git']));
  });
});

interface Workflow {
  on: { push: { branches: string[] } };
  jobs: Record<
    string,
    {
      needs?: string;
      permissions?: Record<string, string>;
      strategy?: { matrix: { provider: string[] } };
      steps: { uses?: string; run?: string; with?: Record<string, string> }[];
    }
  >;
}

describe('.github/workflows/publish.yml', () => {
  const workflow = parse(readFileSync(path.join(ROOT, '.github/workflows/publish.yml'), 'utf8')) as Workflow;
  const image = workflow.jobs.image;

  it('publishes from main after the tests pass', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(image?.needs).toBe('test');
    expect(workflow.jobs.test?.steps.some((s) => s.run === '.ci/run')).toBe(true);
    expect(image?.permissions).toMatchObject({ packages: 'write' });
  });

  it('builds the full image and one image per provider, tagged latest and the commit SHA', () => {
    expect(image?.strategy?.matrix.provider).toEqual(['all', ...PROVIDER_IDS]);
    const build = image?.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'));
    expect(build?.with?.['build-args']).toBe('PROVIDER=${{ matrix.provider }}');
    expect(String(build?.with?.push)).toBe('true');
    const tags = (build?.with?.tags ?? '').trim().split('\n');
    expect(tags).toEqual([
      '${{ steps.name.outputs.image }}:latest',
      '${{ steps.name.outputs.image }}:${{ github.sha }}',
    ]);
  });
});
