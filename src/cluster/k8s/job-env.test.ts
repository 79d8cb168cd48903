import { describe, expect, it } from 'vitest';
import { expandReferences } from '../../../test/support/fake-k8s/pod-env.js';
import { rawConfigSchema } from '../../config/schema.js';
import { makeComment, makePayload } from '../../jobs/records.test-helper.js';
import { loadConfig } from '../../config/load-config.js';
import { buildJobEnv, escapeEnvValue, fitPayload, withheldJobSettings } from './job-env.js';

describe('escapeEnvValue', () => {
  const defined: Record<string, string> = { SECRET: 'leaked', HOME: '/home/node' };
  it.each([
    'plain',
    '$(SECRET)',
    '$$(SECRET)',
    'cost: $5 and $$10',
    'trailing $',
    '$(unclosed',
    '$(HOME)/x $(NOPE) $',
    '{"prompt":"echo $(SECRET)"}',
  ])('the kubelet turns the escaped %j back into itself', (value) => {
    expect(expandReferences(escapeEnvValue(value), (name) => defined[name])).toBe(value);
  });
});

describe('fitPayload', () => {
  const bytes = (p: unknown) => Buffer.byteLength(escapeEnvValue(JSON.stringify(p)), 'utf8');

  it('keeps a payload that fits as it is', () => {
    const payload = makePayload('reviewer', 'short');
    expect(fitPayload(payload)).toBe(payload);
  });

  it('drops the comment body first (the prompt carries the request)', () => {
    const body = `@rb ${'x'.repeat(5000)}`;
    const payload = makePayload('worker', 'x'.repeat(500), makeComment({ body, diffHunk: '@@ -1 +1 @@' }));
    const fitted = fitPayload(payload, bytes(payload) - 100);
    expect(fitted.comment.body).toBe('');
    expect(fitted.comment.diffHunk).toBe('@@ -1 +1 @@');
    expect(fitted.prompt).toBe(payload.prompt);
    expect(payload.comment.body).toBe(body);
  });

  it('then the diff hunk, then cuts the prompt with a note', () => {
    const prompt = `${'ä$'.repeat(40_000)}END`;
    const payload = makePayload(
      'worker',
      prompt,
      makeComment({ body: prompt, diffHunk: 'h'.repeat(10_000) }),
    );
    const fitted = fitPayload(payload, 20_000);
    expect(bytes(fitted)).toBeLessThanOrEqual(20_000);
    expect(bytes(fitted)).toBeGreaterThan(19_000);
    expect(fitted.comment.diffHunk).toBeUndefined();
    expect(fitted.prompt.startsWith('ä$ä$')).toBe(true);
    expect(fitted.prompt).toMatch(/cut to fit into a Kubernetes Job\]$/);
    expect(fitted.jobId).toBe(payload.jobId);
  });
});

describe('withheldJobSettings', () => {
  it.each([
    [{ store: { url: 'redis://store:6379/0' } }, {}, []],
    [{ store: { url: 'redis://:pw@store:6379/0' } }, {}, ['STORE_URL']],
    [{ store: { url: 'redis://user:pw@store:6379/0' } }, {}, ['STORE_URL']],
    [{}, { ANTHROPIC_BASE_URL: 'https://u:p@proxy.example' }, ['ANTHROPIC_BASE_URL']],
  ])('%j %j → %j', (yaml, env, expected) => {
    expect(withheldJobSettings(rawConfigSchema.parse(yaml), env)).toEqual(expected);
  });
});

describe('buildJobEnv: review and sandbox settings', () => {
  it('copies the server effective review/sandbox settings so a pod reviews as the server would', () => {
    const config = rawConfigSchema.parse({
      review: {
        incremental: false,
        ignore: ['dist/**', '*.snap'],
        max_comments: 5,
        max_cost_usd: 0.5,
        progress: 'off',
        min_severity: 'P2',
        gate: 'on',
        block_on: 'P0',
      },
      agent: { provider: 'anthropic', sandbox: 'required', sandbox_network: ['registry.npmjs.org'] },
    });
    const env = Object.fromEntries(
      buildJobEnv(makePayload('reviewer', 'p'), config, {}).env.map((e) => [e.name, e.value]),
    );
    expect(env).toMatchObject({
      REVIEW_INCREMENTAL: 'false',
      REVIEW_IGNORE: 'dist/**,*.snap',
      REVIEW_MAX_COMMENTS: '5',
      REVIEW_MAX_COST_USD: '0.5',
      REVIEW_PROGRESS: 'off',
      REVIEW_MIN_SEVERITY: 'P2',
      REVIEW_GATE: 'on',
      REVIEW_BLOCK_ON: 'P0',
      REVIEW_MAX_DIFF_TOKENS: String(config.review.max_diff_tokens),
      AGENT_SANDBOX: 'required',
      AGENT_SANDBOX_NETWORK: 'registry.npmjs.org',
    });
    expect(env).not.toHaveProperty('REVIEW_INSTRUCTIONS');
    // What the pod loads from that env is what the server had.
    const loaded = loadConfig({ env, systemConfigPath: '/nonexistent', cwd: '/nonexistent' }).config;
    expect(loaded.review).toEqual(config.review);
    expect(loaded.agent.sandbox_network).toEqual(['registry.npmjs.org']);
  });
});
