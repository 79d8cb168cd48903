/**
 * Progress on the pull request (CONTRACT §18) from jobs, against the fake GitHub (which validates
 * every call against GitHub's OpenAPI description): a commit status with a token, a check run with
 * an App; nothing for a lifecycle trigger that runs nothing or with `review.progress: off`; a failed
 * job's reason without secrets; a failing status call does not fail the job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { createGitHubPlatform } from '../platforms/github/platform.js';
import type { Platform, PlatformName } from '../platforms/types.js';
import {
  generateAppKeyPair,
  startFakeGitHub,
  type FakeGitHub,
} from '../../test/support/fake-github/index.js';
import { startJobFixture, TOKEN, type JobFixture } from './job-fixture.test-helper.js';
import { cut, fitReport } from './progress.js';
import { makePayload } from './records.test-helper.js';
import { runJob } from './run-job.js';
import { SecretMasker } from '../secrets.js';

let fx: JobFixture;
beforeAll(async () => {
  fx = await startJobFixture();
});
afterAll(async () => {
  await fx?.close();
});

const mention = () =>
  makePayload('reviewer', 'look', fx.comment({ commentId: '9001', body: '@rb-review look' }));

describe('progress with a token: a commit status named reviewbot', () => {
  it('goes pending → success on the head commit, linking the posted review', async () => {
    fx.llm.setScript([{ text: '{"summary": "Looks fine.", "comments": []}' }]);
    expect(await runJob(mention(), fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.statuses.map((s) => [s.context, s.state, s.description])).toEqual([
      ['reviewbot', 'pending', 'reviewbot is reviewing this pull request'],
      ['reviewbot', 'success', expect.stringMatching(/^Reviewed: 0 findings · /)],
    ]);
    const calls = fx.github.requests.filter((r) => r.operationId === 'repos/create-commit-status');
    expect(calls.map((r) => r.path)).toEqual([
      `/repos/acme/widgets/statuses/${fx.scenario.headSha}`,
      `/repos/acme/widgets/statuses/${fx.scenario.headSha}`,
    ]);
    expect(fx.github.statuses[1]!.target_url).toBe(fx.github.issueComments.at(-1)!.html_url);
    expect(fx.github.checkRuns).toEqual([]);
    expect(fx.github.violations).toEqual([]);
  });

  it('sets nothing for a lifecycle trigger on the head already reviewed', async () => {
    const before = fx.github.statuses.length;
    const payload = makePayload(
      'reviewer',
      '',
      fx.comment({ commentType: 'lifecycle', eventType: 'pr_push', authorUsername: 'octocat' }),
    );
    expect(await runJob(payload, fx.ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.statuses).toHaveLength(before);
  });

  it('ends in failure with the reason, and no secret, when the job fails', async () => {
    const before = fx.github.statuses.length;
    fx.llm.setScript([
      {
        error: {
          status: 400,
          body: { type: 'error', error: { type: 'invalid_request_error', message: `bad key ${TOKEN}` } },
        },
      },
    ]);
    const result = await runJob(mention(), fx.ctx);
    expect(result.status).toBe('failed');
    const [pending, failure] = fx.github.statuses.slice(before);
    expect(pending?.state).toBe('pending');
    expect(failure?.state).toBe('failure');
    expect(failure?.description).toMatch(/^The review failed: /);
    expect(failure!.description!.length).toBeLessThanOrEqual(140);
    for (const s of fx.github.statuses) expect(JSON.stringify(s)).not.toContain(TOKEN);
    expect(fx.github.violations).toEqual([]);
  });

  it('a failing status call does not fail the job', async () => {
    const before = fx.github.statuses.length;
    fx.github.failNext('POST', /\/statuses\//, 500);
    fx.llm.setScript([{ text: '{"summary": "Still fine.", "comments": []}' }]);
    expect(await runJob(mention(), fx.ctx)).toEqual({ status: 'succeeded' });
    // The start failed (a POST is not repeated after a 5xx): the job ran and finished nothing it
    // never started.
    expect(fx.github.statuses).toHaveLength(before);
    expect(fx.logs.some((l) => l.includes('could not start the progress report'))).toBe(true);
  });

  it('review.progress: off sets nothing', async () => {
    const before = fx.github.statuses.length;
    fx.llm.setScript([{ text: '{"summary": "Quiet.", "comments": []}' }]);
    const ctx = {
      ...fx.ctx,
      config: { ...fx.ctx.config, review: { ...fx.ctx.config.review, progress: 'off' as const } },
    };
    expect(await runJob(mention(), ctx)).toEqual({ status: 'succeeded' });
    expect(fx.github.statuses).toHaveLength(before);
  });
});

describe('progress with a GitHub App: a check run named reviewbot', () => {
  const keys = generateAppKeyPair();
  let app: FakeGitHub;
  let platform: Platform;

  beforeAll(async () => {
    app = await startFakeGitHub({
      token: 'ghp_unusedPersonalToken000000000000',
      app: { appId: 99, installationId: 5, slug: 'rb-app', publicKeyPem: keys.publicKeyPem },
    });
    await app.addPullRequest({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      bareRepoPath: fx.scenario.bareRepoPath,
      base: fx.scenario.base,
      head: fx.scenario.head,
      title: 'Tune the service constants',
    });
    platform = createGitHubPlatform({
      settings: {
        auth: { kind: 'app', appId: '99', installationId: 5, privateKey: keys.privateKeyPem },
        apiUrl: app.url,
        webhookSecret: undefined,
      },
      logger: createLogger({ destination: 'stderr', level: 'silent', masker: new SecretMasker([]) }),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a WORKER job: in_progress → completed success, with its scoped token (checks: write)', async () => {
    fx.llm.setScript([{ text: 'Nothing to change.' }]);
    const ctx = { ...fx.ctx, platforms: new Map<PlatformName, Platform>([['github', platform]]) };
    const payload = makePayload(
      'worker',
      'check it',
      fx.comment({ cloneUrl: app.gitUrl('acme', 'widgets'), body: '@rb-worker check it' }),
    );
    expect(await runJob(payload, ctx)).toEqual({ status: 'succeeded' });
    expect(app.checkRuns).toEqual([
      expect.objectContaining({
        name: 'reviewbot',
        head_sha: fx.scenario.headSha,
        status: 'completed',
        conclusion: 'success',
        output: expect.objectContaining({ title: 'Done: no changes' }),
      }),
    ]);
    const mints = app.requests.filter((r) => r.operationId === 'apps/create-installation-access-token');
    expect(mints.map((r) => (r.body as { permissions: Record<string, string> }).permissions.checks)).toEqual(
      mints.map(() => 'write'),
    );
    expect(app.statuses).toEqual([]);
    expect(app.violations).toEqual([]);
  });

  it('the fake refuses a check run to a token without checks: write, and to a personal token', async () => {
    const body = { name: 'reviewbot', head_sha: fx.scenario.headSha, status: 'in_progress' };
    const post = (auth: string) =>
      fetch(`${app.url}/repos/acme/widgets/check-runs`, {
        method: 'POST',
        headers: { authorization: `token ${auth}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('ghp_unusedPersonalToken000000000000')).status).toBe(403);
    const minted = await platform.forJob!('acme/widgets', 'reviewer').getGitCredentials();
    expect((await post(minted.password)).status).toBe(201);
  });
});

describe('fitting a report to a platform', () => {
  it('masks secrets, flattens and cuts the description to the limit, drops a summary with no place', () => {
    const masker = new SecretMasker([TOKEN]);
    const platform = { progressLimits: { description: 12, summary: 0 } } as unknown as Platform;
    const fitted = fitReport(
      { description: `failed:\n${TOKEN} and more`, summary: 'receipt' },
      platform,
      masker,
    );
    expect(fitted.description).not.toContain(TOKEN);
    expect(fitted.description).toHaveLength(12);
    expect(fitted.description.endsWith('…')).toBe(true);
    expect(fitted).not.toHaveProperty('summary');
    expect(cut('abc', 3)).toBe('abc');
  });

  it('neutralises mentions in the description and the summary (a check run summary is Markdown)', () => {
    const platform = { progressLimits: { description: 140, summary: 65_535 } } as unknown as Platform;
    const fitted = fitReport(
      { description: 'The review failed: model said @acme/security-team', summary: 'ping @{123}, `@x`' },
      platform,
      new SecretMasker([]),
    );
    expect(fitted.description).toBe('The review failed: model said @\u2060acme/security-team');
    expect(fitted.summary).toBe('ping @\u2060{123}, `@x`');
  });
});
