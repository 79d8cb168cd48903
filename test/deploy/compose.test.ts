/**
 * `compose.yaml` (no Docker engine in tests: checked as data): `serve` from this repository's
 * image with Redis as its store, the port `serve` listens on, secrets from `.env` only, a volume the
 * image's user owns for the workspaces, and time for `serve` to drain its jobs on stop.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './dockerfile.js';

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  env_file?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const server = compose.services.reviewbot!;
const redis = compose.services.redis!;

describe('compose.yaml', () => {
  it('starts serve from the image of this repository, on port 8080', () => {
    expect(server.build).toBe('.');
    expect(server.command).toEqual(['serve']);
    expect(server.ports).toEqual(['8080:8080']);
    expect(server.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:8080/health');
  });

  it('uses the Redis service as its store, once Redis answers', () => {
    expect(redis.image).toMatch(/^redis:7/);
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(server.environment?.STORE_URL).toBe('redis://redis:6379/0');
    expect(server.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
  });

  it('takes secrets from .env (ignored by git and the image build), none written here', () => {
    expect(server.env_file).toBe('.env');
    for (const name of Object.keys(server.environment ?? {})) expect(name).not.toMatch(/TOKEN|SECRET|KEY/);
    const lines = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    expect(lines('.gitignore')).toContain('.env');
    expect(lines('.dockerignore')).toContain('.env');
  });

  it('keeps the workspaces in a volume the image user (uid 1000, home /home/node) owns', () => {
    expect(server.volumes).toEqual(['home:/home/node']);
    expect(server.environment?.WORKSPACE_BASE_DIR).toMatch(/^\/home\/node\//);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['home', 'redis']));
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
  });

  it('gives serve longer than its 60 s drain to stop', () => {
    const seconds = Number(/^(\d+)s$/.exec(server.stop_grace_period ?? '')?.[1]);
    expect(seconds).toBeGreaterThan(60);
  });
});
